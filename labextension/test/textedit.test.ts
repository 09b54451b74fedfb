import { applyEdit, minimalEdit } from '../src/textedit';

describe('minimalEdit', () => {
  it('replaces only the changed middle', () => {
    const old = 'import torch\nx = x.cuda()\nprint(x)\n';
    const next = 'import torch\nx = x\nprint(x)\n';
    const edit = minimalEdit(old, next)!;
    expect(edit).toEqual({ from: 18, to: 25, insert: '' });
    expect(applyEdit(old, edit)).toBe(next);
  });

  it('returns null for equal texts and handles insertions at both ends', () => {
    expect(minimalEdit('a', 'a')).toBeNull();
    expect(applyEdit('abc', minimalEdit('abc', 'xabc'))).toBe('xabc');
    expect(applyEdit('abc', minimalEdit('abc', 'abcx'))).toBe('abcx');
    expect(applyEdit('abc', minimalEdit('abc', ''))).toBe('');
  });

  it('never splits a surrogate pair', () => {
    const old = 'a😀b';
    const next = 'a😁b';
    const edit = minimalEdit(old, next)!;
    expect(old.slice(edit.from, edit.to)).toBe('😀');
    expect(edit.insert).toBe('😁');
  });
});
