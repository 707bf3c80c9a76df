/**
 * The train argv `npm run experiment -- opid-table` starts each run with (cli/experiment.ts): for every protocol,
 * every env and preset of the registry, with and without a shipped base policy, each run's argv gives each flag once
 * and parses with train's own flag table (cli/train-flags.ts; train refuses a flag given twice); and `mergeFlags`, the
 * rule that keeps it so, lets a row's flag win over a shared one, which is left out.
 */
import { describe, expect, it } from 'vitest';
import { mergeFlags, plannedTrainArgvs } from '../../cli/experiment';
import { parseArgs } from '../../cli/args';
import { ignoredFlagIssues, SPEC as TRAIN_SPEC } from '../../cli/train-flags';
import { ENV_SPECS } from '../../src/core/envs/registry';

const PROTOCOLS = ['table', 'reference', 'map-easy'];

/** The flags (without `--`) an argv names more than once. */
function repeated(argv: readonly string[]): string[] {
  const names = argv.filter((w) => w.startsWith('--')).map((w) => w.slice(2).split('=')[0]);
  return names.filter((n, i) => names.indexOf(n) !== i);
}

describe('experiment: the train argv of every run', () => {
  it('every protocol × env × preset × method: each flag once, accepted by train', () => {
    let runs = 0;
    const methods = new Set<string>();
    for (const protocol of PROTOCOLS)
      for (const spec of ENV_SPECS)
        for (const preset of spec.presets)
          for (const hasBase of [true, false]) {
            const argv = ['opid-table', '--protocol', protocol, '--env', spec.name, '--preset', preset, '--seeds', '2'];
            const jobs = plannedTrainArgvs(argv, hasBase);
            expect(jobs.length).toBeGreaterThan(0);
            for (const j of jobs) {
              expect({ run: `${protocol} ${spec.name}/${preset} ${j.method}`, repeated: repeated(j.argv) }).toEqual({
                run: `${protocol} ${spec.name}/${preset} ${j.method}`,
                repeated: [],
              });
              const parsed = parseArgs(j.argv, TRAIN_SPEC);
              // what train refuses after parsing: a flag the row's algorithm does not read
              expect(ignoredFlagIssues(j.argv, String(parsed.algo))).toEqual([]);
              expect([parsed.env, parsed.preset, parsed.seed, parsed.json]).toEqual([spec.name, preset, j.seed, true]);
              methods.add(`${protocol}/${j.method}`);
              runs++;
            }
          }
    // 6 table rows, 4 reference rows, 5 map rows
    expect(methods.size).toBe(15);
    const presets = ENV_SPECS.reduce((n, s) => n + s.presets.length, 0);
    expect(runs).toBe(presets * 2 * 2 * 15);
  });

  it("K (--max-step-skills): the OPID paper's where the env sets it (EnvSpec.opidMaxStepSkills), every row", () => {
    for (const spec of ENV_SPECS)
      for (const protocol of ['table', 'map-easy']) {
        const argv = ['opid-table', '--protocol', protocol, '--env', spec.name, '--preset', spec.defaultPreset];
        for (const j of plannedTrainArgvs(argv, true)) {
          const parsed = parseArgs(j.argv, TRAIN_SPEC);
          const reads = parsed.algo === 'opid' || parsed.algo === 'skill-grpo';
          expect({ env: spec.name, method: j.method, k: parsed['max-step-skills'] }).toEqual({
            env: spec.name,
            method: j.method,
            k: reads ? spec.opidMaxStepSkills : undefined,
          });
        }
      }
    expect(ENV_SPECS.map((s) => s.opidMaxStepSkills)).toEqual([undefined, undefined, 2]); // household, shop, searchqa
  });

  it("a row's flag wins over the shared one, which is left out", () => {
    expect(
      mergeFlags(['--env', 'e', '--lambda-skill', '0.3', '--steps', '9'], ['--lambda-skill', '1', '--seed', '2']),
    ).toEqual(['--env', 'e', '--steps', '9', '--lambda-skill', '1', '--seed', '2']);
    expect(mergeFlags(['--failed-only=true', '--tasks', '4'], ['--failed-only', 'false'])).toEqual([
      '--tasks',
      '4',
      '--failed-only',
      'false',
    ]);
    expect(mergeFlags(['--tasks', '4'], ['--tasks=8', '--json'])).toEqual(['--tasks=8', '--json']);
    expect(mergeFlags(['--tasks', '4'], [])).toEqual(['--tasks', '4']);
  });
});
