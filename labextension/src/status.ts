/** The status-bar text of a kernel's msnb state (null: msnb not loaded there). */

import { IKernelState } from './protocol';

export function statusText(state: IKernelState | null): string {
  if (!state) {
    return 'msnb: not loaded';
  }
  const device = state.target ?? state.device;
  return `msnb: ${device} · ${state.mode} · AMP ${state.amp}`;
}
