/**
 * "Migrate this notebook to msnb": save it, let the server run
 * `msnb.migration.migrate_notebook` (the CLI's `msnb migrate`), open the result.
 */

import { Dialog, Notification, showDialog } from '@jupyterlab/apputils';
import { CommandRegistry } from '@lumino/commands';
import { NotebookPanel } from '@jupyterlab/notebook';

import * as api from './api';
import { IMigrateReply } from './protocol';
import { migrationSummary } from './status';

export async function migrateNotebook(panel: NotebookPanel, commands: CommandRegistry): Promise<IMigrateReply | null> {
  if (panel.context.model.dirty) {
    await panel.context.save();
  }
  const path = panel.context.path;
  let reply: IMigrateReply;
  try {
    reply = await api.migrate({ path });
  } catch (error) {
    if ((error as api.MsnbRequestError).status !== 409) {
      Notification.error(String((error as Error).message ?? error), { autoClose: 8000 });
      return null;
    }
    const answer = await showDialog({
      title: 'Replace the migrated notebook?',
      body: String((error as Error).message).replace(/^msnb migrate: /, ''),
      buttons: [Dialog.cancelButton(), Dialog.warnButton({ label: 'Replace' })]
    });
    if (!answer.button.accept) {
      return null;
    }
    try {
      reply = await api.migrate({ path, overwrite: true });
    } catch (again) {
      Notification.error(String((again as Error).message ?? again), { autoClose: 8000 });
      return null;
    }
  }
  await commands.execute('docmanager:open', { path: reply.output });
  Notification.success(migrationSummary(reply), { autoClose: 8000 });
  return reply;
}
