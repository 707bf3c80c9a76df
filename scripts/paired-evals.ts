/**
 * Paired comparison of `npm run eval -- --json` outputs played on the same tasks with the same `--seed`:
 * `npx tsx scripts/paired-evals.ts BASE_FILE NAME=FILE [NAME=FILE …]`.
 *
 * Reads each file's `{"event":"episode",split,index,taskType,success,reward}` lines (other lines are skipped; every
 * episode line is checked with a schema and a malformed one names its file and line). Prints a Markdown table per
 * split: one row per task type (in the order the base file meets them) and the split's total, with the base's success
 * and, per named policy, its success and the paired difference to the base in percent points, `mean ± s.e.` over the
 * episodes both files hold at the same (split, index) (s.e. of the mean of the per-episode differences, each −1, 0 or
 * +1). A task absent from a file is left out of that pair. Exit 2 with the reason on a missing file or bad argument.
 */
import * as fs from 'node:fs';
import { z } from 'zod';

const USAGE = 'npx tsx scripts/paired-evals.ts BASE_FILE NAME=FILE [NAME=FILE …]';
const die = (m: string): never => {
  process.stderr.write(`paired-evals: ${m}\nusage: ${USAGE}\n`);
  process.exit(2);
};

const Episode = z.object({
  event: z.literal('episode'),
  split: z.string(),
  index: z.number().int().nonnegative(),
  taskType: z.string(),
  success: z.boolean(),
});
type Episode = z.infer<typeof Episode>;

/** The episode lines of an eval --json file, keyed `split/index`. @throws via die on a bad line. */
function readEpisodes(file: string): Map<string, Episode> {
  if (!fs.existsSync(file)) die(`no file at ${file}`);
  const out = new Map<string, Episode>();
  fs.readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (!line.includes('"event":"episode"')) return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        die(`${file}:${i + 1}: not JSON`);
      }
      const r = Episode.safeParse(parsed);
      if (!r.success) die(`${file}:${i + 1}: not an episode line (${r.error.issues[0].message})`);
      out.set(`${r.data!.split}/${r.data!.index}`, r.data!);
    });
  if (out.size === 0) die(`${file} holds no episode line: write it with npm run eval -- --json`);
  return out;
}

/** `mean ± s.e.` in percent points of per-episode differences (each −1, 0, +1). */
function pairedText(d: number[]): string {
  if (d.length === 0) return '—';
  const m = d.reduce((a, b) => a + b, 0) / d.length;
  const v = d.length > 1 ? d.reduce((a, b) => a + (b - m) ** 2, 0) / (d.length - 1) : 0;
  const se = Math.sqrt(v / d.length);
  return `${m >= 0 ? '+' : ''}${(100 * m).toFixed(1)} ± ${(100 * se).toFixed(1)}`;
}

const argv = process.argv.slice(2);
if (argv.includes('--help')) {
  process.stdout.write(`usage: ${USAGE}\n`);
  process.exit(0);
}
if (argv.length < 2) die('give the base file and at least one NAME=FILE');
const base = readEpisodes(argv[0]);
const others = argv.slice(1).map((a) => {
  const at = a.indexOf('=');
  if (at <= 0) die(`"${a}" is not NAME=FILE`);
  return { name: a.slice(0, at), eps: readEpisodes(a.slice(at + 1)) };
});

/** Success of `xs` in percent, one decimal; `—` for none. */
function pct(xs: Episode[]): string {
  return xs.length ? ((100 * xs.filter((e) => e.success).length) / xs.length).toFixed(1) : '—';
}
const splits = [...new Set([...base.values()].map((e) => e.split))];
for (const split of splits) {
  const inSplit = [...base.values()].filter((e) => e.split === split);
  const types = [...new Set(inSplit.map((e) => e.taskType))];
  const head = ['task type', 'episodes', 'base', ...others.flatMap((o) => [o.name, `Δ ${o.name}`])];
  process.stdout.write(`\n### ${split}\n\n| ${head.join(' | ')} |\n|${head.map(() => '---|').join('')}\n`);
  for (const type of [...types, 'all']) {
    const rows = type === 'all' ? inSplit : inSplit.filter((e) => e.taskType === type);
    const cells = others.flatMap((o) => {
      const mine = rows.map((e) => o.eps.get(`${split}/${e.index}`)).filter((e): e is Episode => e !== undefined);
      const diffs = rows.flatMap((e) => {
        const m = o.eps.get(`${split}/${e.index}`);
        return m ? [Number(m.success) - Number(e.success)] : [];
      });
      return [pct(mine), pairedText(diffs)];
    });
    process.stdout.write(`| ${[type, String(rows.length), pct(rows), ...cells].join(' | ')} |\n`);
  }
}
