/**
 * `npx tsx cli/pack.ts DIR FILE.opdrun` packs a run directory (written by `train --run-dir`) into one file, the
 * format the page's Runs view imports and exports (src/core/run-files/pack.ts); `npx tsx cli/pack.ts --unpack
 * FILE.opdrun DIR` unpacks one into a new or empty run directory (for `train --resume`, `coverage`, `compare`). Bad
 * input: a message naming the file and what is wrong on stderr, exit 2.
 */
import { USAGE_EXIT_CODE, UsageError, parseArgsAndPositionals, type FlagTable } from './args';
import { RunDirError } from './rundir';
import { packDir, unpackToDir } from './packfile';

const USAGE = 'usage: npx tsx cli/pack.ts DIR FILE.opdrun   |   npx tsx cli/pack.ts --unpack FILE.opdrun DIR';

function fail(msg: string): never {
  process.stderr.write(`pack: ${msg}\n${USAGE}\n`);
  process.exit(USAGE_EXIT_CODE);
}

/** pack's flags (its other arguments are the two paths). */
const FLAGS = {
  unpack: { type: 'boolean', help: 'unpack FILE.opdrun into DIR' },
  help: { type: 'boolean', help: 'print the usage' },
} as const satisfies FlagTable;

function main(): void {
  let values: { unpack: boolean; help: boolean }, positionals: string[];
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
  try {
    if (values.unpack)
      process.stdout.write(
        `unpacked ${unpackToDir(positionals[0], positionals[1]).length} files into ${positionals[1]}\n`,
      );
    else
      process.stdout.write(
        `packed ${positionals[0]} into ${positionals[1]} (${packDir(positionals[0], positionals[1])} bytes)\n`,
      );
  } catch (e) {
    if (e instanceof RunDirError) fail(e.message);
    throw e;
  }
}

main();
