/**
 * Reading a household task line back (the inverse of text.ts `taskText`): the object kind it names. Used by
 * search-step detection; the analyzer has its own reading (src/core/envs/household/analyzer/progress.ts).
 */

/** The object kind of `look at X under the desklamp.` (null for other shapes). */
export function lookObject(task: string): string | null {
  return task.match(/^look at ([a-z]+) under the desklamp\.?$/)?.[1] ?? null;
}

/** The object kind of `put a [clean|hot|cool] X in Y.` / `put two X in Y.` (null for other shapes). */
export function taskObjectKind(task: string): string | null {
  return task.match(/\b(?:a|an|some|two)\s+(?:(?:clean|hot|cool) )?([a-z]+)\s+(?:in|on)\s+/)?.[1] ?? null;
}
