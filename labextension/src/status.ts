/** One-line texts the extension shows: the status bar, the migration notice. */

import { IKernelState, IMigrateReply } from './protocol';

/** The status-bar text of a kernel's msnb state (null: msnb not loaded there). */
export function statusText(state: IKernelState | null): string {
  if (!state) {
    return 'msnb: not loaded';
  }
  const device = state.target ?? state.device;
  return `msnb: ${device} · ${state.mode} · AMP ${state.amp}`;
}

/** One line saying what migrate did. */
export function migrationSummary(reply: IMigrateReply): string {
  const fixed = Object.values(reply.fixed).reduce((a, b) => a + b, 0);
  const human = reply.needs_human.length;
  return (
    `msnb: wrote ${reply.output}: ${reply.changed_cells} cell${reply.changed_cells === 1 ? '' : 's'} changed, ` +
    `${fixed} fix${fixed === 1 ? '' : 'es'} applied, ${human} item${human === 1 ? '' : 's'} need${human === 1 ? 's' : ''} a human`
  );
}
