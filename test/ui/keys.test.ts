/**
 * The explorer's ← / → turn stepping (ExplorerTurn.svelte through turnStepOf, src/ui/state/keys.ts): it fires on
 * the turn panel, its buttons and tokens, but not while a form control (the "colour tokens by" select, an input, a
 * textarea) or editable text has focus, which keep the arrow keys for themselves.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { isTypingTarget, turnStepOf } from '../../src/ui/state/keys';

/** Stand-ins for the elements a key press can come from (what a browser's elements report). */
const el = (tagName: string, isContentEditable = false) => ({ tagName, isContentEditable }) as unknown as EventTarget;

describe('isTypingTarget', () => {
  it('is true for select, input, textarea and editable text; false for anything else', () => {
    for (const tag of ['SELECT', 'INPUT', 'TEXTAREA', 'select']) expect(isTypingTarget(el(tag))).toBe(true);
    expect(isTypingTarget(el('SPAN', true))).toBe(true); // contenteditable, or inside it
    for (const tag of ['DIV', 'BUTTON', 'SPAN', 'OPTION']) expect(isTypingTarget(el(tag))).toBe(false);
    expect(isTypingTarget(null)).toBe(false);
  });
});

describe('turnStepOf', () => {
  it('→ is the next turn and ← the previous one, on the turn panel, a button or a token', () => {
    for (const tag of ['DIV', 'BUTTON', 'SPAN']) {
      expect(turnStepOf({ key: 'ArrowRight', target: el(tag) })).toBe(1);
      expect(turnStepOf({ key: 'ArrowLeft', target: el(tag) })).toBe(-1);
    }
    expect(turnStepOf({ key: 'ArrowUp', target: el('DIV') })).toBe(0);
    expect(turnStepOf({ key: 'a', target: el('DIV') })).toBe(0);
  });

  it('does not step while the colour select, an input, a textarea or editable text has focus', () => {
    for (const target of [el('SELECT'), el('INPUT'), el('TEXTAREA'), el('P', true)]) {
      expect(turnStepOf({ key: 'ArrowRight', target })).toBe(0);
      expect(turnStepOf({ key: 'ArrowLeft', target })).toBe(0);
    }
  });

  it("is what the turn panel's key handler uses, and the colour select sits inside that panel", () => {
    const src = readFileSync(new URL('../../src/ui/components/ExplorerTurn.svelte', import.meta.url), 'utf8');
    expect(src).toContain('const d = turnStepOf(e);');
    expect(src).toContain('explorer.move(d);');
    expect(src.indexOf('onkeydown={onkey}')).toBeLessThan(src.indexOf('data-testid="explorer-quantity"'));
  });
});
