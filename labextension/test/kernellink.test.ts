import { Signal } from '@lumino/signaling';

import { KernelLink, PROBE_ATTEMPTS, PROBE_RETRY_MS } from '../src/kernellink';

/** A comm the fake kernel hands out; `open()` records it, nothing answers unless the test does. */
class FakeComm {
  isDisposed = false;
  onMsg: ((msg: any) => void) | null = null;
  onClose: ((msg: any) => void) | null = null;
  constructor(private readonly opened: FakeComm[]) {}
  open(): { done: Promise<void> } {
    this.opened.push(this);
    return { done: Promise.resolve() };
  }
  send(): void {}
  dispose(): void {
    this.isDisposed = true;
  }
  answer(state: any): void {
    this.onMsg?.({ content: { data: { state } } });
  }
}

function fakeSession() {
  const opened: FakeComm[] = [];
  const kernel = {
    info: Promise.resolve({}),
    isDisposed: false,
    status: 'idle',
    registerCommTarget: () => undefined,
    createComm: () => new FakeComm(opened)
  };
  const owner = {};
  const session = {
    session: { kernel },
    kernelChanged: new Signal<any, any>(owner),
    iopubMessage: new Signal<any, any>(owner),
    statusChanged: new Signal<any, any>(owner),
    ready: Promise.resolve()
  };
  return { session, kernel, opened };
}

const STATE = { mode: 'graph', amp: 'O2', device: 'auto', target: 'CPU', analyze: true };

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await Promise.resolve();
  }
}

describe('KernelLink asks a reconnected kernel for its msnb state', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('asks again when its first comm_open got no answer (lost on a reconnect)', async () => {
    const { session, opened } = fakeSession();
    const link = new KernelLink(session as any);
    await settle();
    expect(opened).toHaveLength(1);
    jest.advanceTimersByTime(PROBE_RETRY_MS);
    expect(opened).toHaveLength(2);
    expect(opened[0].isDisposed).toBe(true);
    opened[1].answer(STATE);
    expect(link.state).toEqual(STATE);
    jest.advanceTimersByTime(10 * PROBE_RETRY_MS);
    expect(opened).toHaveLength(2); // answered: no more asking
    link.dispose();
  });

  it('stops at the refusal of a kernel without msnb (comm_close)', async () => {
    const { session, opened } = fakeSession();
    const link = new KernelLink(session as any);
    await settle();
    opened[0].onClose?.({});
    jest.advanceTimersByTime(10 * PROBE_RETRY_MS);
    expect(opened).toHaveLength(1);
    expect(link.state).toBeNull();
    link.dispose();
  });

  it('waits for a busy kernel without counting it as an attempt', async () => {
    const { session, kernel, opened } = fakeSession();
    const link = new KernelLink(session as any);
    await settle();
    kernel.status = 'busy';
    jest.advanceTimersByTime(5 * PROBE_RETRY_MS);
    expect(opened).toHaveLength(1);
    opened[0].answer(STATE); // the cell ended; the kernel answers the queued comm_open
    expect(link.state).toEqual(STATE);
    link.dispose();
  });

  it('gives up after a bounded number of attempts', async () => {
    const { session, opened } = fakeSession();
    const link = new KernelLink(session as any);
    await settle();
    jest.advanceTimersByTime(3 * PROBE_ATTEMPTS * PROBE_RETRY_MS);
    expect(opened).toHaveLength(PROBE_ATTEMPTS);
    link.dispose();
  });
});
