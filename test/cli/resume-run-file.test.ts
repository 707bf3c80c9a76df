/**
 * `train --resume X.opdrun`: a run file where a run directory is expected is named, with the command that unpacks it
 * (exit 2).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'opd-resume-msg-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function train(args: string[]) {
  return spawnSync('node_modules/.bin/tsx', ['cli/train.ts', ...args, '--steps', '1'], {
    encoding: 'utf8',
    timeout: 100_000,
  });
}

describe('train --resume: a run file', () => {
  it('--resume X.opdrun: a file, not a run directory, with the unpack command', () => {
    const file = path.join(tmp, 'x.opdrun');
    fs.writeFileSync(file, 'OPD\n');
    const r = train(['--resume', file]);
    expect(r.status).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      `train: --resume: "${file}" is a file, not a run directory; it is a run file (.opdrun): unpack it ` +
        `first (npx tsx cli/pack.ts --unpack ${file} DIR), then give DIR`,
    );
  }, 110_000);
});
