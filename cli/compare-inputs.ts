/**
 * What `npm run compare` (cli/compare.ts) reads for each path given: a run directory (a folder with a run.json) or a
 * run file (.opdrun) as it is; a folder that holds run directories instead — an experiment's `--out` folder, whose
 * runs are in `runs/<method>-<seed>/`, or that `runs/` folder itself — stands for those run directories (said in a
 * note); an experiment's copy of a run's events (`<method>-<seed>.jsonl`) is refused naming the run directory to give.
 */
import fs from 'node:fs';
import path from 'node:path';
import { RUN_FILE } from '../src/core/run/record';
import { isRunPack } from '../src/core/run-files/pack';
import { RunDirError, runDirFileMessage } from './rundir';

/** The paths compare reads, in order, and the notes to print about folders that stood for their runs. */
export interface CompareInputPaths {
  paths: string[];
  notes: string[];
}

/** Whether `dir` is a run directory: a folder holding a run.json. */
function isRunDir(dir: string): boolean {
  return fs.existsSync(path.join(dir, RUN_FILE)) && fs.statSync(dir).isDirectory();
}

/** The run directories directly in folder `dir`, by name. */
function runDirsIn(dir: string): string[] {
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return [];
  return fs
    .readdirSync(dir)
    .sort()
    .map((n) => path.join(dir, n))
    .filter(isRunDir);
}

/** The first bytes of file `p`. */
function head(p: string): Uint8Array {
  const fd = fs.openSync(p, 'r');
  try {
    const b = new Uint8Array(64);
    return b.subarray(0, fs.readSync(fd, b, 0, b.length, 0));
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * @throws RunDirError for an experiment's copy of a run's events (a `.jsonl` file that is no run file and no run
 *   directory's own events.jsonl), naming the run directory it was copied from when it is there.
 */
function checkEventsCopy(p: string): void {
  if (!p.endsWith('.jsonl') || runDirFileMessage(p, '') !== null || isRunPack(head(p))) return;
  const stem = path.basename(p, '.jsonl');
  const source = path.join(path.dirname(p), 'runs', stem);
  throw new RunDirError(
    `"${p}" is a copy of a run's events (npm run experiment writes <method>-<seed>.jsonl for each finished run), ` +
      `not a run directory or run file (.opdrun); ` +
      (isRunDir(source)
        ? `give its run directory ${source}`
        : `give the run directory it was copied from (a folder with a run.json)`),
  );
}

/**
 * The paths compare reads for `args` (module comment): each run directory or run file as given; a folder without a
 * run.json replaced by the run directories in it, or else in its `runs/` folder, with a note naming them.
 * @throws RunDirError for an experiment's events copy, and for a folder that neither is a run directory nor holds
 *   one (the message names the folder, that it has no run.json, where runs were looked for and what to give).
 */
export function compareInputPaths(args: readonly string[]): CompareInputPaths {
  const paths: string[] = [];
  const notes: string[] = [];
  for (const a of args) {
    const st = fs.statSync(a, { throwIfNoEntry: false });
    if (st?.isFile()) checkEventsCopy(a);
    if (!st?.isDirectory() || isRunDir(a)) {
      paths.push(a); // a run directory or run file, or a path whose own error compare names
      continue;
    }
    const runs = path.join(a, 'runs');
    const found = runDirsIn(a).length ? runDirsIn(a) : runDirsIn(runs);
    if (!found.length)
      throw new RunDirError(
        `${a}: no ${RUN_FILE} (not a run directory written by train --run-dir), and no run directory in it` +
          `${fs.existsSync(runs) ? ` or in ${runs}` : ''}; give run directories (folders with a ${RUN_FILE}) ` +
          `or .opdrun files`,
      );
    const where = found.every((f) => path.dirname(f) === runs) ? `in ${runs}` : 'in it';
    notes.push(
      `${a} is not a run directory (no ${RUN_FILE}); comparing the ${found.length} run ` +
        `director${found.length === 1 ? 'y' : 'ies'} ${where}: ${found.map((f) => path.basename(f)).join(', ')}`,
    );
    paths.push(...found);
  }
  return { paths, notes };
}
