/**
 * A count written with its noun in agreement, for every line the CLIs and the core print with a count in it: `done:
 * 1 step`, `of 1 episode`, `2 steps`, `0 episodes`. English only: one is singular, every other count (0 included)
 * plural.
 */

/**
 * `n` and `noun` in agreement: `counted(1, 'step')` → `1 step`, `counted(2, 'step')` → `2 steps`, `counted(0,
 * 'val task')` → `0 val tasks`; `plural` for a noun whose plural is not noun + s (`counted(3, 'entry', 'entries')`).
 */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
