/**
 * `npm run play` closes an open form as the page's Play view does (core/envs/play.ts `closeOpenForm`): words typed
 * after an admissible `search[` with no `]` are played as `search[words]`, and the line shows the action played.
 */
import { describe, expect, it } from 'vitest';
import { playSession } from '../helpers/play-session';

/** Run `play` in-process on fixed input lines; returns exit code and stdout. */
const session = playSession;

describe('play: a missing closing ] of an open form is added', () => {
  it('text mode on shop: `search[red shoes` is played as search[red shoes] and costs no invalid action', async () => {
    const r = await session(['--env', 'shop', '--task', '0'], ['search[red shoes']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('> Action: search[red shoes]\n[back to search]\nPage 1 (Total results: ');
    expect(r.out).not.toContain('Nothing happens.');
    expect(r.out.trimEnd().split('\n').at(-1)).toBe(
      'End of input: no success after 1 of 15 steps, total reward 0 (0 invalid actions).',
    );
  });

  it('text mode: a closed action, and text that is no open form, are played as typed', async () => {
    const r = await session(['--env', 'shop', '--task', '0'], ['search[red shoes]']);
    expect(r.out).toContain('> [back to search]\nPage 1 (Total results: '); // as typed: no "Action:" line
    const h = await session(['--task', '357', '--preset', 'easy'], ['go to desk 1', 'take laptop 1 from desk 1 [']);
    expect(h.out).toContain('> You arrive at desk 1.');
    expect(h.out.trimEnd().split('\n').at(-1)).toBe(
      'End of input: no success after 2 of 10 steps, total reward 0 (1 invalid action).',
    );
  });
});
