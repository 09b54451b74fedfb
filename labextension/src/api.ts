/**
 * Calls to msnb's server extension; the token and XSRF handling come from
 * JupyterLab's ServerConnection, like every Jupyter request.
 */

import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

import { IAnalyzeReply, IAnalyzeRequest, IFixReply, IFixRequest, IMigrateReply, IMigrateRequest } from './protocol';

/** An error answered by the server, with its one-line message. */
export class MsnbRequestError extends Error {
  constructor(
    message: string,
    readonly status: number
  ) {
    super(message);
  }
}

async function post<T>(endpoint: string, body: unknown): Promise<T> {
  const settings = ServerConnection.makeSettings();
  const url = URLExt.join(settings.baseUrl, 'msnb', endpoint);
  let response: Response;
  try {
    response = await ServerConnection.makeRequest(url, { method: 'POST', body: JSON.stringify(body) }, settings);
  } catch (error) {
    throw new MsnbRequestError(`msnb server unreachable: ${String(error)}`, 0);
  }
  const text = await response.text();
  let data: any = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const message = data?.error ?? data?.message ?? `HTTP ${response.status}`;
    throw new MsnbRequestError(`msnb ${endpoint}: ${message}`, response.status);
  }
  return data as T;
}

export function analyze(request: IAnalyzeRequest): Promise<IAnalyzeReply> {
  return post<IAnalyzeReply>('analyze', request);
}

export function fix(request: IFixRequest): Promise<IFixReply> {
  return post<IFixReply>('fix', request);
}

export function migrate(request: IMigrateRequest): Promise<IMigrateReply> {
  return post<IMigrateReply>('migrate', request);
}
