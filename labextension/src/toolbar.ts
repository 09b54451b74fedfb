/**
 * The kernel's msnb mode and AMP level in the notebook toolbar (changeable),
 * and device and mode in the status bar. Both render a KernelLink's state, so
 * a change made in the kernel (magic, panel) shows in both.
 */

import { Widget } from '@lumino/widgets';

import { KernelLink } from './kernellink';
import { AMP_LEVELS, IKernelState, MODES } from './protocol';
import { statusText } from './status';

function select(className: string, title: string, values: readonly string[]): HTMLSelectElement {
  const element = document.createElement('select');
  element.className = `jp-msnb-select ${className}`;
  element.title = title;
  for (const value of values) {
    const option = element.appendChild(document.createElement('option'));
    option.value = value;
    option.textContent = value;
  }
  return element;
}

export class ModeToolbarItem extends Widget {
  constructor(private readonly link: KernelLink) {
    super();
    this.addClass('jp-msnb-ModeToolbarItem');
    const label = this.node.appendChild(document.createElement('span'));
    label.className = 'jp-msnb-label';
    label.textContent = 'msnb';
    this.mode = this.node.appendChild(select('jp-msnb-mode', 'msnb execution mode of this kernel', MODES));
    this.amp = this.node.appendChild(select('jp-msnb-amp', 'msnb AMP level of this kernel', AMP_LEVELS));
    this.mode.onchange = () => this.link.set({ mode: this.mode.value as IKernelState['mode'] });
    this.amp.onchange = () => this.link.set({ amp: this.amp.value as IKernelState['amp'] });
    link.stateChanged.connect(this.update, this);
    this.update();
  }

  readonly mode: HTMLSelectElement;
  readonly amp: HTMLSelectElement;

  update(): void {
    const state = this.link.state;
    this.mode.disabled = this.amp.disabled = !state;
    this.node.title = state ? statusText(state) : 'msnb is not loaded in this kernel: run %load_ext msnb';
    if (state) {
      this.mode.value = state.mode;
      this.amp.value = state.amp;
    }
  }
}

export class StatusItem extends Widget {
  constructor() {
    super();
    this.addClass('jp-msnb-StatusItem');
    this.node.textContent = statusText(null);
  }

  /** Follow another notebook's link (the current notebook changed). */
  follow(link: KernelLink | null): void {
    if (this._link) {
      this._link.stateChanged.disconnect(this._render, this);
    }
    this._link = link;
    link?.stateChanged.connect(this._render, this);
    this._render();
  }

  private _render(): void {
    this.node.textContent = statusText(this._link?.state ?? null);
  }

  private _link: KernelLink | null = null;
}
