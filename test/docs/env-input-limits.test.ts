/**
 * docs/envs/<env>.md: under its bad-input table, each env's page says that `npm run play` and `npm run serve`'s
 * `POST /step` refuse an input over their limits before the env sees it, with the limits the code has
 * (cli/play.ts `MAX_LINE_CHARS`, cli/serve/env-routes.ts `MAX_ACTION_CHARS`), and how an empty action fares in
 * play's two modes.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MAX_LINE_CHARS } from '../../cli/play';
import { MAX_ACTION_CHARS } from '../../cli/serve/env-routes';
import { ENV_NAMES } from '../../src/core/envs/registry';

/** `n` with a space between groups of three digits, as the docs write numbers (`2 000`). */
const grouped = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');

/** A page's text with its line breaks read as spaces. */
const page = (env: string) => fs.readFileSync(`docs/envs/${env}.md`, 'utf8').replace(/\n/g, ' ');

describe('env pages: the limits before the env, and the empty action', () => {
  it.each(ENV_NAMES.map((e) => [e]))('%s', (env) => {
    const text = page(env);
    const table = text.indexOf('## Bad input');
    expect(table).toBeGreaterThan(0);
    const after = text.slice(table);
    expect(after).toContain(
      `\`npm run play\` refuses an input line over ${grouped(MAX_LINE_CHARS)} characters (\`MAX_LINE_CHARS\` in ` +
        '`cli/play.ts`; with `--json`, the whole JSON line)',
    );
    expect(after).toContain(
      `\`POST /step\` an action over ${grouped(MAX_ACTION_CHARS)} characters (\`MAX_ACTION_CHARS\` in ` +
        '`cli/serve/env-routes.ts`, a 400 naming the field), neither costing a step',
    );
    expect(after).toContain(
      "`play`'s text mode skips an empty or blank line without a step, while `--json`'s `{\"action\":\"\"}` is " +
        'played: an invalid step.',
    );
  });
});
