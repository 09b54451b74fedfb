/**
 * The notebook's link to msnb in its kernel: a Jupyter comm with target
 * "msnb" (kernel side: `msnb/frontend_comm.py`).
 *
 * The kernel opens the comm when `%load_ext msnb` runs; the front end also
 * opens one itself when it connects to a kernel that may already have msnb
 * loaded (page reload). `state` is null while msnb is not loaded; every
 * change, from a magic, the panel or the toolbar, arrives as a new state.
 */

import { ISessionContext } from '@jupyterlab/apputils';
import { Kernel, KernelMessage } from '@jupyterlab/services';
import { ISignal, Signal } from '@lumino/signaling';

import { IKernelState } from './protocol';

export const COMM_TARGET = 'msnb';
/** How long to wait for the kernel's answer to our comm_open before asking again, and how often. */
export const PROBE_RETRY_MS = 3000;
export const PROBE_ATTEMPTS = 10;

export class KernelLink {
  constructor(private readonly session: ISessionContext) {
    session.kernelChanged.connect(this._onKernelChanged, this);
    session.iopubMessage.connect(this._onIopub, this);
    session.statusChanged.connect((_, status) => {
      if (status === 'restarting' || status === 'autorestarting' || status === 'dead') {
        this._closeComm();
        this._setState(null); // a restarted kernel has not loaded msnb
      }
    }, this);
    void session.ready.then(() => this._onKernelChanged());
  }

  /** The kernel's msnb state, null when msnb is not loaded there. */
  get state(): IKernelState | null {
    return this._state;
  }

  /** Emits after every state change (including to null). */
  get stateChanged(): ISignal<this, IKernelState | null> {
    return this._stateChanged;
  }

  /** Emits the kernel's one-line refusal of a change (bad value). */
  get errors(): ISignal<this, string> {
    return this._errors;
  }

  /** Ask the kernel to change settings (`{mode: 'graph'}`); answered with a new state. */
  set(changes: Partial<IKernelState>): boolean {
    if (!this._comm || this._comm.isDisposed) {
      return false;
    }
    this._comm.send({ action: 'set', changes } as any);
    return true;
  }

  dispose(): void {
    Signal.clearData(this);
    this._clearProbe();
    this._closeComm();
  }

  private _onKernelChanged(): void {
    this._closeComm();
    this._setState(null);
    const kernel = this.session.session?.kernel;
    if (!kernel) {
      return;
    }
    if (this._registeredOn !== kernel) {
      this._registeredOn = kernel;
      kernel.registerCommTarget(COMM_TARGET, (comm, msg) => this._adopt(comm, msg.content.data as any));
    }
    // msnb may already be loaded (the page was reloaded): ask.
    void kernel.info.then(() => this._probe(kernel, 0));
  }

  /**
   * Open a comm of our own to a kernel that may have msnb loaded, and ask
   * again while neither answer arrives: the state (msnb is loaded) or a
   * comm_close (no "msnb" target: msnb is not loaded). A comm_open, or the
   * kernel's answer, sent while the page's websocket is still connecting can
   * be lost (seen under load after a page reload: the status bar then read
   * "not loaded" for good). A busy kernel answers when its cell ends, so a
   * wait while it is busy does not count as an attempt.
   */
  private _probe(kernel: Kernel.IKernelConnection, attempt: number): void {
    if (this._comm || kernel.isDisposed || this.session.session?.kernel !== kernel) {
      return;
    }
    const comm = kernel.createComm(COMM_TARGET);
    this._adopt(comm, null);
    void comm.open({}).done.catch(() => undefined);
    const check = (): void => {
      this._probeTimer = null;
      if (this._comm !== comm || this._state !== null || kernel.isDisposed) {
        return; // answered (state or refusal), or superseded
      }
      if (kernel.status === 'busy') {
        this._probeTimer = setTimeout(check, PROBE_RETRY_MS);
      } else if (attempt + 1 < PROBE_ATTEMPTS) {
        console.debug(`msnb: no answer from the kernel to comm_open ${attempt + 1}, asking again`);
        this._closeComm();
        this._probe(kernel, attempt + 1);
      }
    };
    this._clearProbe();
    this._probeTimer = setTimeout(check, PROBE_RETRY_MS);
  }

  private _clearProbe(): void {
    if (this._probeTimer !== null) {
      clearTimeout(this._probeTimer);
      this._probeTimer = null;
    }
  }

  private _adopt(comm: Kernel.IComm, data: any): void {
    if (this._comm && this._comm !== comm) {
      this._comm.dispose();
    }
    this._comm = comm;
    comm.onMsg = (msg: KernelMessage.ICommMsgMsg) => this._onData(msg.content.data as any);
    comm.onClose = () => {
      if (this._comm === comm) {
        this._comm = null;
        this._setState(null);
      }
    };
    if (data) {
      this._onData(data);
    }
  }

  private _onData(data: any): void {
    if (data?.state) {
      this._setState(data.state as IKernelState);
    }
    if (typeof data?.error === 'string') {
      this._errors.emit(data.error);
    }
  }

  /** After each executed cell, re-read the state (the device is bound by the first msnb cell). */
  private _onIopub(_: ISessionContext, msg: KernelMessage.IMessage): void {
    if (
      msg.header.msg_type === 'status' &&
      (msg as KernelMessage.IStatusMsg).content.execution_state === 'idle' &&
      (msg.parent_header as any)?.msg_type === 'execute_request' &&
      this._comm &&
      !this._comm.isDisposed
    ) {
      this._comm.send({ action: 'get' } as any);
    }
  }

  private _closeComm(): void {
    if (this._comm && !this._comm.isDisposed) {
      this._comm.dispose();
    }
    this._comm = null;
  }

  private _setState(state: IKernelState | null): void {
    const same = JSON.stringify(state) === JSON.stringify(this._state);
    this._state = state;
    if (!same) {
      this._stateChanged.emit(state);
    }
  }

  private _comm: Kernel.IComm | null = null;
  private _registeredOn: Kernel.IKernelConnection | null = null;
  private _probeTimer: ReturnType<typeof setTimeout> | null = null;
  private _state: IKernelState | null = null;
  private _stateChanged = new Signal<this, IKernelState | null>(this);
  private _errors = new Signal<this, string>(this);
}
