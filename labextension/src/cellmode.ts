/**
 * Which msnb mode a cell is analyzed in: its own `%%torch_on_ascend --mode X`
 * flag when it has one, else the kernel's current mode (the magic applies the
 * same precedence when it runs the cell).
 */

import { Mode, MODES } from './protocol';

const MODE_FLAG = /\s--mode(?:=|\s+)(\S+)/;

export function cellMode(source: string, kernelMode: Mode): Mode {
  const first = source.split('\n', 1)[0];
  if (!/^%%torch_on_ascend\b/.test(first)) {
    return kernelMode;
  }
  const match = MODE_FLAG.exec(first);
  if (match && (MODES as readonly string[]).includes(match[1])) {
    return match[1] as Mode;
  }
  return kernelMode;
}
