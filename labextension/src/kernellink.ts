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
    // msnb may already be loaded (the page was reloaded): ask once.
    void kernel.info.then(() => {
      if (!this._comm && this.session.session?.kernel === kernel) {
        const comm = kernel.createComm(COMM_TARGET);
        this._adopt(comm, null);
        void comm.open({}).done.catch(() => undefined);
      }
    });
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
  private _state: IKernelState | null = null;
  private _stateChanged = new Signal<this, IKernelState | null>(this);
  private _errors = new Signal<this, string>(this);
}
