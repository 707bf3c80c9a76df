/**
 * `npx tsx cli/pack.ts DIR FILE.opdrun` packs a run directory (written by `train --run-dir`) into one file, the
 * format the page's Runs view imports and exports (src/core/run-files/pack.ts); `npx tsx cli/pack.ts --unpack
 * FILE.opdrun DIR` unpacks one into a new or empty run directory (for `train --resume`, `coverage`, `compare`).
 * An existing FILE.opdrun is replaced only with `--force`.
 *
 * Every failure prints one message on stderr naming the file, what is wrong, what was kept and what to do: bad input
 * (no such run directory or run file, a folder that is not a run, a truncated or corrupt run file, a FILE.opdrun
 * that exists, an output folder that does not exist, a target folder that is not empty) exits 2 with the usage;
 * a write or read the system refuses (a full disk, a read-only file system, no permission) exits 1. Nothing is
 * left behind: the pack goes through a temporary file and the unpacked run through a temporary folder, renamed into
 * place once whole and removed on a failure; those of a killed pack or unpack are removed by the next one that
 * writes the same path (with a note).
 */
import { USAGE_EXIT_CODE, UsageError, parseArgsAndPositionals, type FlagTable } from './args';
import { RunDirError } from './rundir';
import { packDir, packFailureMessage, unpackToDir } from './packfile';
import { removeStaleTemporaries } from './files';
import { counted } from '../src/core/count-text';

const USAGE = 'usage: npx tsx cli/pack.ts DIR FILE.opdrun [--force]   |   npx tsx cli/pack.ts --unpack FILE.opdrun DIR';

function fail(msg: string): never {
  process.stderr.write(`pack: ${msg}\n${USAGE}\n`);
  process.exit(USAGE_EXIT_CODE);
}

/** pack's flags (its other arguments are the two paths). */
const FLAGS = {
  unpack: { type: 'boolean', help: 'unpack FILE.opdrun into DIR' },
  force: { type: 'boolean', help: 'replace FILE.opdrun when it exists' },
  help: { type: 'boolean', help: 'print the usage' },
} as const satisfies FlagTable;

/** Pack or unpack as the flags say; returns the line to print. @throws RunDirError, or the fs error of a write. */
function run(unpack: boolean, force: boolean, from: string, to: string): string {
  // Leftovers of a pack or unpack killed while it wrote `to` (a dead process's `to.tmp-<pid>`).
  for (const p of removeStaleTemporaries(to))
    process.stderr.write(`pack: note: removed ${p}, left by an interrupted pack or unpack\n`);
  if (unpack) {
    if (force) throw new RunDirError('--force replaces a pack file; --unpack writes only a new or empty folder');
    return `unpacked ${counted(unpackToDir(from, to).length, 'file')} into ${to}`;
  }
  return `packed ${from} into ${to} (${counted(packDir(from, to, force), 'byte')})`;
}

function main(): void {
  let values: { unpack: boolean; force: boolean; help: boolean }, positionals: string[];
  try {
    ({ flags: values, positionals } = parseArgsAndPositionals(process.argv.slice(2), FLAGS));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    fail(e.message);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (positionals.length !== 2) fail(`expected two paths, got ${positionals.length}`);
  const [from, to] = positionals;
  const nothing = values.unpack ? 'nothing was unpacked' : 'nothing was written';
  try {
    process.stdout.write(`${run(values.unpack, values.force, from, to)}\n`);
  } catch (e) {
    if (e instanceof RunDirError) fail(`${e.message}; ${nothing}`);
    const msg = packFailureMessage(e, values.unpack ? 'unpack' : 'pack', from, to);
    process.stderr.write(`pack: ${msg ?? `${(e as Error).message}; ${nothing}`}\n`);
    process.exit(1);
  }
}

main();
