/**
 * Browser end-to-end test of the page: the worker picks WebGPU, Start trains, the charts' text tables and the
 * trajectory panel update; forcing wasm trains too, from the shipped base policy, and its weights are saved,
 * downloaded and trained from again; a preset without a base policy starts from scratch with a notice; Pretrain shows
 * progress and stores its weights; OPID shows skills beside the trajectory with the critical steps marked, from the
 * heuristic analyzer and from a local http one. Tiny settings through the link hash, because WebGPU here runs on
 * SwiftShader (CPU emulation).
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { decodeSafetensors } from '../../src/core/model/io';
import { ROOT, useE2E } from './harness';
import { DEFAULT_CONFIG } from '../../src/core/run/config';

/** The shipped base policy's model size (household/easy), so the wasm run can start from it whatever it is. */
const BASE_MODEL = (
  JSON.parse(readFileSync(join(ROOT, 'public/base/household-easy.json'), 'utf8')) as { model: string }
).model;

/**
 * WebGPU here is SwiftShader (CPU emulation, ~70–100 s per update even at these sizes on 2 cores), so the WebGPU
 * run is as small as the trainer allows: B=1, G=2, no evaluation, no history in the prompt.
 * miniBatches must stay ≤ B·G.
 */
const TINY_GPU = 'model=nano&steps=2&tasksPerStep=1&groupSize=2&miniBatches=2&evalEvery=0&historyTurns=0';
/**
 * wasm is fast enough (~1 s per update) for evaluation and pause/step checks. Start from (`init`) is left at its
 * default, the base policy, which needs the base policy's model size.
 */
const TINY_WASM =
  `backend=wasm&model=${BASE_MODEL}&steps=8&tasksPerStep=1&groupSize=2` + '&miniBatches=2&evalEvery=2&evalEpisodes=2';

/** Opens the page with a link hash, collecting console errors and warnings for failure messages. */
const { open } = useE2E({ warnings: true });

/** The step number shown by the step counter (`step N / M`). */
async function stepShown(page: Page): Promise<number> {
  const text = (await page.getByTestId('step-counter').textContent()) ?? '';
  return Number(/step (\d+)/.exec(text)?.[1] ?? NaN);
}

/** Waits until the step counter shows at least `n`, failing early with the page's error banner if one shows. */
async function waitForStep(page: Page, n: number, timeoutMs: number, logs: string[]): Promise<void> {
  try {
    await page.waitForFunction(
      (min) => {
        if (document.querySelector('[data-testid="error-banner"]')) return true;
        const t = document.querySelector('[data-testid="step-counter"]')?.textContent ?? '';
        return Number(/step (\d+)/.exec(t)?.[1] ?? -1) >= min;
      },
      n,
      { timeout: timeoutMs, polling: 500 },
    );
  } catch (e) {
    throw new Error(`step ${n} not reached (shown: ${await stepShown(page)}); console:\n${logs.join('\n')}\n${e}`, {
      cause: e,
    });
  }
  const banner = page.getByTestId('error-banner');
  if (await banner.count())
    throw new Error(`error banner: ${await banner.textContent()}\nconsole:\n${logs.join('\n')}`);
}

describe('page in Chromium', () => {
  it('auto skips the software WebGPU adapter (SwiftShader here) for wasm, and the badge says why', async () => {
    const { page } = await open('model=nano&steps=1');
    const badge = page.getByTestId('backend-badge');
    await expect.poll(async () => (await badge.textContent())?.trim() ?? '', { timeout: 60_000 }).toMatch(/wasm/);
    expect(await badge.textContent()).toMatch(/⚠/);
    expect(
      await page.evaluate(() => document.querySelector('[data-testid="backend-details"]')?.textContent ?? ''),
    ).toMatch(
      new RegExp(
        'webgpu: software adapter \\(.+\\): a CPU emulation, about 60× slower than wasm; ' +
          'choose webgpu in Settings to use it anyway',
      ),
    );
    await page.close();
  }, 120_000);

  it(
    'trains on a forced webgpu backend (software adapter here): trains on Start, updates charts and ' + 'trajectories',
    async () => {
      const { page, logs } = await open(TINY_GPU + '&backend=webgpu');
      const badge = page.getByTestId('backend-badge');
      await expect.poll(async () => (await badge.textContent())?.trim() ?? '', { timeout: 60_000 }).toMatch(/webgpu/);
      await expect.poll(async () => page.getByTestId('start-button').isEnabled(), { timeout: 30_000 }).toBe(true);

      const successBefore = await page.getByTestId('chart-table-success').textContent();
      const klBefore = await page.getByTestId('chart-table-kl').textContent();
      const trajBefore = await page.getByTestId('trajectory-panel').textContent();
      expect(await stepShown(page)).toBe(0);

      await page.getByTestId('start-button').click();
      await waitForStep(page, 2, 330_000, logs);

      const successAfter = await page.getByTestId('chart-table-success').textContent();
      const klAfter = await page.getByTestId('chart-table-kl').textContent();
      const trajAfter = (await page.getByTestId('trajectory-panel').textContent()) ?? '';
      expect(successAfter).not.toBe(successBefore);
      expect(successAfter).toMatch(/\d+\.\d %/);
      expect(klAfter).not.toBe(klBefore);
      expect(klAfter).toMatch(/nats\/tok/);
      expect(trajAfter).not.toBe(trajBefore);
      expect(trajAfter).toMatch(/rollout 1: (success|failure)/);
      expect(trajAfter).toMatch(/R = \d/);
      expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
      await page.screenshot({ path: '/tmp/opd-page.png', fullPage: true });
      await page.close();
    },
    400_000,
  );

  it(
    'trains on a forced wasm backend from the base policy; Pause stops and Step runs exactly one update; ' +
      'saved weights start a new run',
    async () => {
      const { page, logs } = await open(TINY_WASM);
      const badge = page.getByTestId('backend-badge');
      await expect.poll(async () => (await badge.textContent())?.trim() ?? '', { timeout: 60_000 }).toMatch(/wasm/);
      await expect.poll(async () => page.getByTestId('start-button').isEnabled(), { timeout: 30_000 }).toBe(true);
      // Start from defaults to the base policy, which loaded (no fallback notice).
      expect(await page.locator('#field-init').inputValue()).toBe('base');
      const baseLabel = `the base policy (pretrained; household/easy, ${BASE_MODEL})`;
      // The worker resolves the start weights asynchronously (fetch + sha256 of the base): wait for its answer.
      await expect
        .poll(async () => (await page.getByTestId('weights-init').textContent()) ?? '', { timeout: 30_000 })
        .toContain(`starts from ${baseLabel}`);
      expect(await page.getByTestId('base-notice').count()).toBe(0);
      await page.getByTestId('start-button').click();
      // Start turns disabled while training: keyboard focus moves to Pause instead of being dropped.
      await expect
        .poll(async () => page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.testid), {
          timeout: 30_000,
        })
        .toBe('pause-button');
      await waitForStep(page, 2, 120_000, logs);
      expect(await page.getByTestId('init-source').textContent()).toBe(`from ${baseLabel}`);
      expect(await page.getByTestId('trajectory-panel').textContent()).toMatch(/rollout 1/);
      expect(await page.getByTestId('chart-table-success').textContent()).toMatch(/\d+\.\d %/);

      await page.getByTestId('pause-button').click();
      const phase = page.getByTestId('run-phase');
      // The run has 8 steps: Pause at step ≥ 2 must stop it before it finishes (it did not on wasm before the
      // worker yielded to its message queue between updates).
      await expect.poll(async () => (await phase.textContent())?.trim(), { timeout: 60_000 }).toMatch(/^paused$/);
      const paused = await stepShown(page);
      expect(paused).toBeLessThan(8);
      if ((await phase.textContent())?.trim() === 'paused') {
        await page.waitForTimeout(1500); // nothing may advance while paused
        expect(await stepShown(page)).toBe(paused);
        await page.getByTestId('step-button').click();
        await waitForStep(page, paused + 1, 60_000, logs);
        await expect
          .poll(async () => (await phase.textContent())?.trim(), { timeout: 60_000 })
          .toMatch(/^(paused|done)$/);
        expect(await stepShown(page)).toBe(paused + 1);
      }

      // Weights: Save → listed; Download → a safetensors file the CLI reads; Start from → a new run trains from
      // it.
      const name = 'e2e-wasm-checkpoint';
      await page.getByTestId('weights-name').fill(name);
      await expect.poll(async () => page.getByTestId('weights-save').isEnabled(), { timeout: 10_000 }).toBe(true);
      await page.getByTestId('weights-save').click();
      const list = page.getByTestId('weights-list');
      await expect.poll(async () => (await list.textContent()) ?? '', { timeout: 30_000 }).toContain(name);
      expect(await list.textContent()).toContain(BASE_MODEL);
      const [download] = await Promise.all([
        page.waitForEvent('download', { timeout: 30_000 }),
        page.getByRole('button', { name: `Download ${name}` }).click(),
      ]);
      expect(download.suggestedFilename()).toBe(`${name}.safetensors`);
      const file = decodeSafetensors(new Uint8Array(readFileSync(await download.path())));
      expect(file.meta).toMatchObject({
        format: 'opd-playground',
        modelSize: BASE_MODEL,
        step: String(await stepShown(page)),
      });

      await page.getByRole('button', { name: `Start from ${name}` }).click();
      await expect
        .poll(async () => (await page.getByTestId('weights-init').textContent()) ?? '', { timeout: 30_000 })
        .toContain(name);
      await expect.poll(async () => stepShown(page), { timeout: 30_000 }).toBe(0);
      await expect.poll(async () => page.getByTestId('start-button').isEnabled(), { timeout: 30_000 }).toBe(true);
      await page.getByTestId('start-button').click();
      await waitForStep(page, 1, 60_000, logs);
      expect(await page.getByTestId('init-source').textContent()).toBe(`from checkpoint "${name}"`);
      expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
      await page.close();
    },
    300_000,
  );

  it(
    'starts from scratch with a notice when the preset has no base policy; Start from scratch goes in ' + 'the link',
    async () => {
      // household/default ships a base policy: the server answers 404 for its manifest here, as for a preset without
      // one.
      const asked: string[] = [];
      const { page, logs } = await open(
        'backend=wasm&model=nano&preset=default&steps=1&tasksPerStep=1&groupSize=2&miniBatches=1&evalEvery=0',
        {
          before: (p) =>
            p.route('**/base/household-default.json', (route) => {
              asked.push(route.request().url());
              return route.fulfill({ status: 404, contentType: 'text/plain', body: 'not found' });
            }),
        },
      );
      const notice = page.getByTestId('base-notice');
      await notice.waitFor({ timeout: 60_000 });
      const text = (await notice.textContent()) ?? '';
      expect(text).toMatch(/Starting from scratch: no base policy for household\/default/);
      expect(text).toContain('make one with npm run pretrain -- --env household --preset default');
      expect(asked.length).toBeGreaterThan(0); // the 404 came from the route above
      expect(await page.getByTestId('weights-init').textContent()).toContain('starts from fresh weights from seed 1');
      // The run still trains, from scratch.
      await expect.poll(async () => page.getByTestId('start-button').isEnabled(), { timeout: 30_000 }).toBe(true);
      await page.getByTestId('start-button').click();
      await waitForStep(page, 1, 120_000, logs);
      expect(await page.getByTestId('init-source').textContent()).toBe('from fresh weights from seed 1');
      // Choosing scratch explicitly: stored in the link, and nothing to warn about.
      await expect
        .poll(async () => (await page.getByTestId('run-phase').textContent())?.trim(), { timeout: 60_000 })
        .toBe('done');
      await page.locator('#field-init').selectOption('scratch');
      // The finished run has an unsaved step: the page asks before discarding it.
      await page.getByTestId('confirm-change-yes').click();
      await expect.poll(async () => page.evaluate(() => location.hash), { timeout: 10_000 }).toContain('init=scratch');
      await expect.poll(async () => notice.count(), { timeout: 30_000 }).toBe(0);
      expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
      await page.close();
    },
    180_000,
  );

  it('pretrains in the worker: progress per iteration, then a done message and the weights in the list', async () => {
    const { page, logs } = await open(TINY_WASM);
    await expect
      .poll(async () => (await page.getByTestId('backend-badge').textContent())?.trim() ?? '', { timeout: 60_000 })
      .toMatch(/wasm/);
    const button = page.getByTestId('pretrain-button');
    await expect.poll(async () => button.isEnabled(), { timeout: 30_000 }).toBe(true);
    await page.getByTestId('pretrain-iters').fill('4');
    // Record every text the progress readout shows (the run is short: polling alone could miss the middle).
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { pretrainSeen: string[] }).pretrainSeen = seen;
      new MutationObserver(() => {
        const t = document.querySelector('[data-testid="pretrain-progress"]')?.textContent ?? '';
        if (t && seen[seen.length - 1] !== t) seen.push(t);
      }).observe(document.querySelector('section.pretrain')!, { subtree: true, childList: true, characterData: true });
    });
    await button.click();
    // Training waits while pretraining runs.
    await expect.poll(async () => page.getByTestId('start-button').isDisabled(), { timeout: 10_000 }).toBe(true);
    const message = page.getByTestId('pretrain-message');
    await expect
      .poll(async () => (await message.textContent()) ?? '', { timeout: 120_000 })
      .toMatch(/^Pretraining (done|failed)/);
    const name = `pretrained-${BASE_MODEL}-easy-seed1`;
    expect(await message.textContent()).toMatch(
      new RegExp(
        `^Pretraining done: 4 iterations, loss \\d+\\.\\d+ nats/token, .+\\. Saved as "${name}" in this ` +
          `browser \\(Weights panel\\)`,
      ),
    );
    const seen = await page.evaluate(() => (window as unknown as { pretrainSeen: string[] }).pretrainSeen);
    const iters = seen
      .map((t) => /^iter (\d+) \/ 4 · loss \d+\.\d+ nats\/token/.exec(t)?.[1])
      .filter((x) => x)
      .map(Number);
    // The done event re-shows iteration 4 with the final elapsed time: a new text when the clock ticked over.
    expect(iters.filter((n, i) => n !== iters[i - 1])).toEqual([1, 2, 3, 4]);
    expect(await page.getByTestId('pretrain-bar').getAttribute('value')).toBe('4');
    await expect
      .poll(async () => (await page.getByTestId('weights-list').textContent()) ?? '', { timeout: 30_000 })
      .toContain(name);
    expect(await page.getByTestId('start-button').isEnabled()).toBe(true);
    expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
    await page.close();
  }, 180_000);

  it('trains on a forced webgl backend (the third of the four backends; cpu is covered in Node)', async () => {
    const { page, logs } = await open(TINY_GPU.replace('steps=2', 'steps=1') + '&backend=webgl');
    const badge = page.getByTestId('backend-badge');
    await expect.poll(async () => (await badge.textContent())?.trim() ?? '', { timeout: 60_000 }).toMatch(/webgl/);
    await expect.poll(async () => page.getByTestId('start-button').isEnabled(), { timeout: 30_000 }).toBe(true);
    await page.getByTestId('start-button').click();
    await waitForStep(page, 1, 240_000, logs);
    expect(await page.getByTestId('trajectory-panel').textContent()).toMatch(/rollout 1: (success|failure)/);
    expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
    await page.close();
  }, 300_000);

  it(
    'Advanced: the From-scratch recipe button sets the README recipe, which goes in the link; a bad ' +
      'advanced value is named',
    async () => {
      const { page, logs } = await open('backend=wasm&model=nano&steps=8&evalEvery=0');
      await expect.poll(async () => page.getByTestId('start-button').isEnabled(), { timeout: 60_000 }).toBe(true);
      expect(await page.locator('#field-maxStepKl').isVisible()).toBe(false); // closed by default
      await page.locator('details.advanced > summary').click();
      await page.getByTestId('scratch-recipe').click();
      await expect
        .poll(async () => page.evaluate(() => location.hash), { timeout: 10_000 })
        .toContain('maxStepKl=0.03');
      const hash = await page.evaluate(() => location.hash);
      for (const kv of [
        'init=scratch',
        'learningRate=0.0005',
        'historyTurns=0',
        'stepAdvWeight=1',
        'entropyCoef=0.02',
        'steps=700',
        'evalEvery=50',
        'evalEpisodes=200',
      ])
        expect(hash).toContain(kv);
      expect(await page.locator('#field-init').inputValue()).toBe('scratch');
      expect(await page.locator('#field-historyTurns').inputValue()).toBe('0');
      expect(await page.locator('#field-maxStepKl').inputValue()).toBe('0.03');
      await expect.poll(async () => page.getByTestId('start-button').isEnabled(), { timeout: 30_000 }).toBe(true);
      await page.locator('#field-klBacktracks').fill('11');
      await page.locator('#field-klBacktracks').press('Enter');
      await page.getByTestId('field-error-klBacktracks').waitFor({ timeout: 10_000 });
      expect(await page.getByTestId('field-error-klBacktracks').textContent()).toMatch(
        /KL line search must be an integer from 0 to 10/,
      );
      expect(await page.getByTestId('start-button').isDisabled()).toBe(true);
      expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
      await page.close();
    },
    120_000,
  );

  it('shows ignored link fields and names a bad field', async () => {
    const { page } = await open(`${TINY_WASM}&steps=abc&bogus=1`);
    const notice = page.getByTestId('link-notice');
    await notice.waitFor({ timeout: 30_000 });
    expect(await notice.textContent()).toMatch(/steps/);
    expect(await notice.textContent()).toMatch(/bogus/);
    await page.locator('#field-groupSize').fill('0');
    await page.locator('#field-groupSize').press('Enter');
    await page.locator('#field-groupSize').blur();
    const err = page.getByTestId('field-error-groupSize');
    await err.waitFor({ timeout: 10_000 });
    expect(await err.textContent()).toMatch(/Group size \(G\) must be an integer from 1 to 64/);
    expect(await page.locator('#field-groupSize').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByTestId('start-button').isDisabled()).toBe(true);
    // The top-bar seed reports like the left panel: label, plain sentence, aria-invalid.
    await page.locator('#field-seed').fill('-3');
    await page.locator('#field-seed').press('Enter');
    await page.getByTestId('field-error-seed').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('field-error-seed').textContent()).toMatch(/Seed must be an integer from 0 to/);
    expect(await page.locator('#field-seed').getAttribute('aria-invalid')).toBe('true');
    await page.close();
  }, 60_000);

  it(
    'OPID with the heuristic analyzer: skill settings, episode skills beside the trajectory, critical ' +
      'steps marked',
    async () => {
      const { page, logs } = await open(
        `backend=wasm&model=${BASE_MODEL}&algo=opid&steps=3&tasksPerStep=1&groupSize=4&miniBatches=2&evalEvery=0`,
      );
      await expect
        .poll(async () => (await page.getByTestId('backend-badge').textContent())?.trim() ?? '', { timeout: 30_000 })
        .toMatch(/wasm/);
      await expect.poll(async () => page.getByTestId('step-button').isEnabled(), { timeout: 20_000 }).toBe(true);
      expect(await page.locator('#field-lambdaSkill').inputValue()).toBe(String(DEFAULT_CONFIG.lambdaSkill));
      expect(await page.locator('#field-analyzer').inputValue()).toBe('heuristic');
      const panel = page.getByTestId('trajectory-panel');
      // The heuristic marks critical steps in most groups, not in every one (a failed rollout alone may have none).
      for (let n = 1; n <= 3; n++) {
        await page.getByTestId('step-button').click();
        await waitForStep(page, n, 30_000, logs);
        await expect
          .poll(async () => (await page.getByTestId('run-phase').textContent())?.trim(), { timeout: 10_000 })
          .toMatch(/^(paused|done)$/);
        if ((await panel.getByTestId('critical-step').count()) > 0) break;
      }
      expect(await panel.getByTestId('episode-skill').count()).toBeGreaterThan(0);
      expect(await panel.getByTestId('episode-skill').first().textContent()).toMatch(/^episode skill: \S/);
      const critical = panel.getByTestId('critical-step').first();
      expect(await critical.textContent()).toMatch(/critical/);
      expect(await critical.getByTestId('step-skill').textContent()).toMatch(/^step skill: \S/);
      expect(await page.getByTestId('chart-table-teacher-share').textContent()).toMatch(/\d+\.\d %/);
      await page.getByTestId('token-colouring').selectOption('aSkill');
      expect(await panel.locator('.tok').count()).toBeGreaterThan(0);
      expect(await page.getByTestId('analyzer-notice').count()).toBe(0);
      expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
      await page.close();
    },
    60_000,
  );

  it(
    'http analyzer: test connection, the key only in the request header, <script> in a skill shown as ' +
      'text, a 401 in words',
    async () => {
      const KEY = 'sk-e2e-secret-0123456789';
      const auth: (string | undefined)[] = [];
      let analyses = 0;
      const completion = (content: string) =>
        JSON.stringify({ model: 'e2e-model', choices: [{ message: { role: 'assistant', content } }] });
      const server: Server = createServer((req, res) => {
        // The page's worker is another origin: answer the CORS preflight, and allow the reply to be read.
        const cors = {
          'access-control-allow-origin': '*',
          'access-control-allow-headers': 'authorization, content-type',
          'access-control-allow-methods': 'POST',
        };
        if (req.method === 'OPTIONS') return void res.writeHead(204, cors).end();
        let raw = '';
        req.on('data', (c) => (raw += c));
        req.on('end', () => {
          const user = (JSON.parse(raw) as { messages: { content: string }[] }).messages.at(-1)!.content;
          auth.push(req.headers.authorization);
          if (/Connection test/.test(user))
            return void res
              .writeHead(200, { ...cors, 'content-type': 'application/json' })
              .end(completion('{"ok": true}'));
          if (analyses++ > 0)
            return void res
              .writeHead(401, { ...cors, 'content-type': 'application/json' })
              .end(JSON.stringify({ error: `bad key ${KEY}` }));
          const skills = {
            episodeSkill: '<script>window.pwned = 1</script> take <b>apple</b>',
            stepSkills: { 0: '<img src=x onerror="window.pwned = 2">' },
          };
          res.writeHead(200, { ...cors, 'content-type': 'application/json' }).end(completion(JSON.stringify(skills)));
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      try {
        const { page, logs } = await open(
          `backend=wasm&model=${BASE_MODEL}&algo=opid&analyzer=http` +
            `&analyzerUrl=${encodeURIComponent(url)}&analyzerModel=tiny` +
            '&steps=2&tasksPerStep=1&groupSize=2&miniBatches=2&evalEvery=0',
        );
        await expect.poll(async () => page.getByTestId('step-button').isEnabled(), { timeout: 30_000 }).toBe(true);
        await page.getByTestId('analyzer-key').fill(KEY);
        await page.getByTestId('analyzer-test').click();
        await expect
          .poll(async () => (await page.getByTestId('analyzer-test-result').textContent()) ?? '', { timeout: 15_000 })
          .toMatch(/^Connected: e2e-model answered in/);
        await page.getByTestId('step-button').click();
        await waitForStep(page, 1, 40_000, logs);
        const panel = page.getByTestId('trajectory-panel');
        await expect.poll(async () => panel.getByTestId('episode-skill').count(), { timeout: 10_000 }).toBe(1);
        expect(await panel.getByTestId('episode-skill').textContent()).toBe(
          'episode skill: <script>window.pwned = 1</script> take <b>apple</b>',
        );
        expect(await panel.getByTestId('critical-step').first().getByTestId('step-skill').textContent()).toBe(
          'step skill: <img src=x onerror="window.pwned = 2">',
        );
        expect(
          await page.evaluate(() => [
            document.querySelectorAll('aside.trajectories script, aside.trajectories img, aside.trajectories b').length,
            (window as { pwned?: number }).pwned,
          ]),
        ).toEqual([0, undefined]);
        expect(await panel.getByTestId('no-skill').textContent()).toMatch(/its analysis failed/);
        const notice = ((await page.getByTestId('analyzer-notice').textContent()) ?? '').replace(/\s+/g, ' ');
        expect(notice).toMatch(/1 rollout in 1 step got no skill signal/);
        expect(notice).toContain('HTTP 401 (API key rejected) — 1 rollout');
        // The key went to the server in the header only, and is nowhere in the page's link or text.
        expect(auth).toEqual([`Bearer ${KEY}`, `Bearer ${KEY}`, `Bearer ${KEY}`]);
        expect(await page.evaluate(() => location.href)).not.toContain(KEY);
        expect(await page.evaluate(() => document.body.innerText)).not.toContain(KEY);
        expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
        await page.getByTestId('token-colouring').selectOption('aEp');
        await page.screenshot({ path: '/tmp/opd-page-opid.png', fullPage: true });
        await page.close();
      } finally {
        server.closeAllConnections();
        await new Promise((r) => server.close(r));
      }
    },
    60_000,
  );
});
