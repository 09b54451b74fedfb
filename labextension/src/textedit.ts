/**
 * The smallest single replacement turning one text into another: applying a
 * fix through it keeps the cursor and the undo step small (Ctrl+Z restores
 * exactly the rewritten part).
 */

export interface IEdit {
  /** Start offset in the old text. */
  from: number;
  /** End offset (exclusive) in the old text. */
  to: number;
  /** Replacement text. */
  insert: string;
}

/** Replacement of `old[from, to)` by `insert` that yields `next`; null when the texts are equal. */
export function minimalEdit(old: string, next: string): IEdit | null {
  if (old === next) {
    return null;
  }
  let start = 0;
  const limit = Math.min(old.length, next.length);
  while (start < limit && old.charCodeAt(start) === next.charCodeAt(start)) {
    start++;
  }
  // never split a surrogate pair
  if (start > 0 && isHighSurrogate(old.charCodeAt(start - 1))) {
    start--;
  }
  let endOld = old.length;
  let endNew = next.length;
  while (endOld > start && endNew > start && old.charCodeAt(endOld - 1) === next.charCodeAt(endNew - 1)) {
    endOld--;
    endNew--;
  }
  if (endOld < old.length && isLowSurrogate(old.charCodeAt(endOld))) {
    endOld++;
    endNew++;
  }
  return { from: start, to: endOld, insert: next.slice(start, endNew) };
}

/** `text` with `edit` applied. */
export function applyEdit(text: string, edit: IEdit | null): string {
  return edit ? text.slice(0, edit.from) + edit.insert + text.slice(edit.to) : text;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
