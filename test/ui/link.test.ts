/** Link codec: versions and non-default fields are written; reading keeps the valid part of a bad link. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/core/run/config';
import { decodeHash, encodeHash, fieldsHoldingSecret, nearestKey } from '../../src/ui/state/link';
import { linkIssueText, plainIssue } from '../../src/ui/state/messages';

describe('link codec', () => {
  it('round-trips a config and writes only what differs', () => {
    const c = { ...DEFAULT_CONFIG, seed: 7, steps: 30, learningRate: 3e-4, backend: 'wasm' as const };
    const h = encodeHash(c);
    expect(h).toBe('v=2&envVersion=household-v2&seed=7&steps=30&learningRate=0.0003&backend=wasm');
    expect(decodeHash(`#${h}`)).toEqual({ config: c, issues: [] });
  });

  it('carries the stored checkpoint a run starts from: its name and sha256, last', () => {
    const sha = 'ab'.repeat(32);
    const c = { ...DEFAULT_CONFIG, seed: 7 };
    const h = encodeHash(c, [], { name: 'my ckpt/1', sha256: sha });
    expect(h).toBe(`v=2&envVersion=household-v2&seed=7&ckpt=my%20ckpt%2F1&ckptSha256=${sha}`);
    expect(decodeHash(`#${h}`)).toEqual({ config: c, issues: [], checkpoint: { name: 'my ckpt/1', sha256: sha } });
    // Half of it, or a sha256 that is not 64 hex digits, is named and ignored; the settings still load.
    for (const bad of ['#seed=7&ckpt=x', `#seed=7&ckptSha256=${sha}`, '#seed=7&ckpt=x&ckptSha256=XYZ']) {
      const r = decodeHash(bad);
      expect(r.config).toEqual(c);
      expect(r.checkpoint).toBeUndefined();
      expect(r.issues).toEqual([
        {
          field: 'ckpt',
          message:
            'a start checkpoint needs both ckpt (its name) and ckptSha256 (64 hex digits); ignored, so ' +
            'the run starts as Start from says',
        },
      ]);
    }
  });

  it('defaults encode as just the versions (the default seed is not written)', () => {
    expect(encodeHash(DEFAULT_CONFIG)).toBe('v=2&envVersion=household-v2');
    expect(decodeHash('').config).toEqual(DEFAULT_CONFIG);
  });

  it('drops bad and unknown fields, names them, keeps the rest', () => {
    const r = decodeHash('#steps=abc&bogus=1&groupSize=4&model=huge&%E0%A4%A=1');
    expect(r.config.groupSize).toBe(4);
    expect(r.config.steps).toBe(DEFAULT_CONFIG.steps);
    expect(r.config.model).toBe(DEFAULT_CONFIG.model);
    expect(r.issues.map((i) => i.field).sort()).toEqual(['%E0%A4%A=1', 'bogus', 'model', 'steps'].sort());
  });

  it('names a key given twice and uses the last value', () => {
    const r = decodeHash('#steps=3&steps=5');
    expect(r.config.steps).toBe(5);
    expect(r.issues).toEqual([{ field: 'steps', message: 'given twice; using 5' }]);
    expect(decodeHash('#seed=1&seed=2&seed=3').issues).toEqual([{ field: 'seed', message: 'given 3 times; using 3' }]);
  });

  it('truncates a very long key so the notice stays narrow', () => {
    const r = decodeHash(`#${'x'.repeat(5000)}=1`);
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0].field.length).toBeLessThanOrEqual(41);
  });

  it('round-trips the start-from choice: base is the default and not written, scratch is', () => {
    expect(DEFAULT_CONFIG.init).toBe('base');
    const c = { ...DEFAULT_CONFIG, init: 'scratch' as const, seed: 4 };
    expect(encodeHash(c)).toBe('v=2&envVersion=household-v2&init=scratch&seed=4');
    expect(decodeHash('#init=scratch&seed=4')).toEqual({ config: c, issues: [] });
    expect(decodeHash(`#${encodeHash({ ...DEFAULT_CONFIG, seed: 4 })}`).config.init).toBe('base');
    expect(decodeHash('#init=base&seed=4')).toEqual({ config: { ...DEFAULT_CONFIG, seed: 4 }, issues: [] });
  });

  it('keeps the rest of a link with a bad start-from value and names it', () => {
    const r = decodeHash('#init=pretrained&steps=7&seed=2');
    expect(r.config).toEqual({ ...DEFAULT_CONFIG, steps: 7, seed: 2 });
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0].field).toBe('init');
    expect(linkIssueText(r.issues[0])).toBe('must be one of base, scratch; ignored');
    expect(plainIssue(r.issues[0])).toBe('Start from must be one of base, scratch.');
  });

  it('round-trips the OPID and analyzer settings, booleans and texts included', () => {
    const c = {
      ...DEFAULT_CONFIG,
      seed: 3,
      algo: 'opid' as const,
      ablation: 'additive' as const,
      lambdaSkill: 0.25,
      maxStepSkills: 2,
      failedOnly: true,
      skillZscore: true,
      skillClip: 1.5,
      analyzer: 'http' as const,
      analyzerUrl: 'http://localhost:11434',
      analyzerModel: 'qwen2.5:7b-instruct',
      analyzerTimeoutMs: 5000,
    };
    const h = encodeHash(c);
    expect(h).toContain('failedOnly=true');
    expect(h).toContain('analyzerUrl=http%3A%2F%2Flocalhost%3A11434');
    expect(decodeHash(`#${h}`)).toEqual({ config: c, issues: [] });
    const sg = { ...DEFAULT_CONFIG, algo: 'skill-grpo' as const, skillMemoryTopK: 3 };
    expect(decodeHash(encodeHash(sg))).toEqual({ config: sg, issues: [] });
  });

  it('round-trips the OPID skill variant; a link without it (older links) gives paper; a bad one is named', () => {
    for (const skillVariant of ['centred', 'per-action', 'where-ep-zero'] as const) {
      const c = { ...DEFAULT_CONFIG, algo: 'opid' as const, skillVariant, seed: 2 };
      const h = encodeHash(c);
      expect(h).toContain(`skillVariant=${skillVariant}`);
      expect(decodeHash(`#${h}`)).toEqual({ config: c, issues: [] });
    }
    const paper = { ...DEFAULT_CONFIG, algo: 'opid' as const, seed: 2 };
    expect(DEFAULT_CONFIG.skillVariant).toBe('paper');
    expect(encodeHash(paper)).not.toContain('skillVariant');
    expect(decodeHash('#v=2&algo=opid&seed=2')).toEqual({ config: paper, issues: [] });
    const bad = decodeHash('#algo=opid&skillVariant=centered&seed=2');
    expect(bad.config).toEqual(paper);
    expect(bad.issues.map((i) => i.field)).toEqual(['skillVariant']);
    expect(linkIssueText(bad.issues[0])).toBe('must be one of paper, centred, per-action, where-ep-zero; ignored');
  });

  it('keeps the valid part of a link with bad OPID values and names them', () => {
    const r = decodeHash('#algo=opid&lambdaSkill=-1&failedOnly=yes&ablation=none&skillClip=2&analyzer=carrier-pigeon');
    expect(r.config).toEqual({ ...DEFAULT_CONFIG, algo: 'opid', skillClip: 2 });
    expect(r.issues.map((i) => i.field).sort()).toEqual(['analyzer', 'failedOnly', 'lambdaSkill']);
    expect(linkIssueText(r.issues.find((i) => i.field === 'failedOnly')!)).toBe('must be true or false; ignored');
    expect(plainIssue(r.issues.find((i) => i.field === 'lambdaSkill')!)).toBe(
      'Skill weight (λ_skill) must be a number from 0 to 100.',
    );
  });

  it('never holds the analyzer key: not a config field, and a field that contains it is left out', () => {
    const key = 'sk-live-SECRET-0123456789';
    const c = {
      ...DEFAULT_CONFIG,
      algo: 'opid' as const,
      analyzer: 'http' as const,
      analyzerUrl: 'http://localhost:8080',
      analyzerModel: 'tiny',
    };
    expect(encodeHash(c, [key])).not.toContain(key);
    expect(encodeHash(c, [key])).toBe(encodeHash(c));
    // A key pasted into the model field by mistake: the field is left out of the link, and named.
    const pasted = { ...c, analyzerModel: key };
    const h = encodeHash(pasted, [key]);
    expect(h).not.toContain(key);
    expect(h).not.toContain(encodeURIComponent(key));
    expect(h).not.toContain('analyzerModel');
    expect(h).toContain('analyzerUrl=');
    expect(fieldsHoldingSecret(pasted, [key])).toEqual(['analyzerModel']);
    expect(fieldsHoldingSecret(pasted, ['ab'])).toEqual([]); // too short to look for
  });

  it('treats every Object.prototype name and __proto__ as an unknown setting (no throw, nothing changed)', () => {
    const names = [...Object.getOwnPropertyNames(Object.prototype), '__proto__', 'prototype', 'hasOwnProperty'];
    for (const n of names) {
      const r = decodeHash(`#seed=3&${encodeURIComponent(n)}=1`);
      expect(r.config).toEqual({ ...DEFAULT_CONFIG, seed: 3 });
      expect(r.issues).toEqual([{ field: n, message: 'unknown setting, ignored' }]);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const r = decodeHash('#__proto__[polluted]=1&constructor[prototype][polluted]=1&steps=9');
    expect(r.config.steps).toBe(9);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('decodes percent-encoding once and names a part encoded twice, with what the link should read', () => {
    const r = decodeHash('#%2573teps=5&seed=%2537');
    expect(r.config).toEqual(DEFAULT_CONFIG);
    const tail = '. Copy the link again with Copy link, or decode it once';
    expect(r.issues.map((i) => [i.field, linkIssueText(i)])).toEqual([
      [
        'steps',
        `percent-encoded twice ("%73teps=5" still holds %-escapes after decoding; "%25" is an encoded ` +
          `"%"), ignored; the link should read steps=5${tail}`,
      ],
      [
        'seed',
        `percent-encoded twice ("seed=%37" still holds %-escapes after decoding; "%25" is an encoded ` +
          `"%"), ignored; the link should read seed=7${tail}`,
      ],
    ]);
  });

  it('a whole link encoded twice (%2526 for &, %253D for =) is named as the link, not as an unknown setting', () => {
    const r = decodeHash('#v%253D2%2526seed%253D3');
    expect(r.config).toEqual(DEFAULT_CONFIG);
    expect(r.issues).toEqual([
      {
        field: '(link)',
        message:
          'percent-encoded twice ("v%3D2%26seed%3D3" still holds %-escapes after decoding; "%25" is an ' +
          'encoded "%"), ignored; the link should read #v=2&seed=3. Copy the link again with Copy link, ' +
          'or decode it once',
      },
    ]);
    // A separator encoded twice inside a value: the rest of the link is kept.
    const s = decodeHash('#v=2&groupSize=4&seed=3%2526steps%253D9');
    expect(s.config).toEqual({ ...DEFAULT_CONFIG, groupSize: 4 });
    expect(s.issues.map((i) => i.field)).toEqual(['seed']);
    expect(s.issues[0].message).toMatch(
      /^percent-encoded twice \("seed=3%26steps%3D9" .*the link should read seed=3&steps=9\. /,
    );
    // A free-text setting may hold "%": its value is taken as decoded once.
    expect(
      decodeHash(`#v=2&analyzerModel=${encodeURIComponent('50%25')}`).issues.filter((i) => /twice/.test(i.message)),
    ).toEqual([]);
  });

  it('opens a 100 kB link: the valid part kept, the problems capped at 20 plus a count', () => {
    const junk = Array.from({ length: 10_000 }, (_, i) => `k${i}=${i}`).join('&');
    const h = `#steps=11&${junk}&groupSize=4`;
    expect(h.length).toBeGreaterThan(100_000);
    const r = decodeHash(h);
    expect(r.config).toEqual({ ...DEFAULT_CONFIG, steps: 11, groupSize: 4 });
    expect(r.issues).toHaveLength(21);
    expect(r.issues[20]).toEqual({ field: '(link)', message: '9980 more problems, ignored' });
  });

  it('reads links of schema 1 (no v, seed always written) as before', () => {
    expect(decodeHash('#seed=1&steps=30')).toEqual({ config: { ...DEFAULT_CONFIG, steps: 30 }, issues: [] });
  });

  it('names a link from a newer schema or another environment version, and keeps what it can', () => {
    const r = decodeHash('#v=9&envVersion=household-v1&steps=12&brandNew=1');
    expect(r.config).toEqual({ ...DEFAULT_CONFIG, steps: 12 });
    expect(r.issues).toEqual([
      {
        field: 'v',
        message: 'made by a newer version (schema 9; this page reads 2): settings it does not know are ignored',
      },
      {
        field: 'envVersion',
        message:
          'made with environment version household-v1; this is household-v2: the tasks may differ, so its ' +
          "results are not comparable with this run's",
      },
      { field: 'brandNew', message: 'unknown setting, ignored' },
    ]);
    expect(decodeHash('#v=two').issues[0].field).toBe('v');
  });

  it('a preset the env does not have is named and reset', () => {
    const r = decodeHash('#preset=nightmare&steps=3');
    expect(r.config).toEqual({ ...DEFAULT_CONFIG, steps: 3 });
    expect(r.issues.map((i) => i.field)).toEqual(['preset']);
  });

  it(
    'a refused preset names the preset used, not "default" (household has a preset called default), and ' +
      'shows a bidi control as an escape',
    () => {
      const r = decodeHash('#preset=%E2%80%AEeasy');
      expect(r.config.preset).toBe('easy');
      expect(r.issues).toEqual([
        {
          field: 'preset',
          message:
            'household has no preset "\\u{202E}easy"; one of default, easy, easy-pick2; did you mean easy?; not ' +
            'accepted, using easy (the default)',
        },
      ]);
      expect(decodeHash('#preset=nightmare').issues[0].message).toBe(
        'household has no preset "nightmare"; one of default, easy, easy-pick2; not accepted, using easy (the default)',
      );
      expect(decodeHash('#klBacktracks=3').issues).toEqual([
        {
          field: 'klBacktracks',
          message:
            'the KL line search only shrinks steps that break maxStepKl, which is 0 (off); set maxStepKl ' +
            '(e.g. 0.03) or set klBacktracks to 0; not accepted, using 0 (the default)',
        },
      ]);
    },
  );

  it(
    'a refused value whose default breaks the same rule falls back to one that holds: the page never ' +
      'opens an invalid config',
    () => {
      const r = decodeHash('#miniBatches=64&tasksPerStep=2&groupSize=2');
      expect(r.config).toMatchObject({ tasksPerStep: 2, groupSize: 2, miniBatches: 4 });
      expect(r.issues).toEqual([
        {
          field: 'miniBatches',
          message:
            'is 64, more than tasksPerStep·groupSize (4): each mini-batch needs a sample; set miniBatches to 4 or ' +
            'fewer, or raise B·G; not accepted, using 4 (the most B·G = 2·2 allows)',
        },
      ]);
      // miniBatches 8 (its default) with B·G 4 and no miniBatches in the link at all
      expect(decodeHash('#tasksPerStep=2&groupSize=2').config.miniBatches).toBe(4);
      const h = decodeHash('#algo=opid&analyzer=http');
      expect(h.config).toMatchObject({ algo: 'opid', analyzer: 'heuristic', analyzerUrl: '' });
      expect(h.issues.map((i) => i.field)).toEqual(['analyzerUrl', 'analyzerModel']);
      expect(
        h.issues.every((i) => i.message.endsWith('not accepted, using the heuristic analyzer (the default)')),
      ).toBe(true);
    },
  );

  it(
    'a query string pasted after the # (#?steps=5) is read: the ? is dropped, not taken as part of the ' + 'first key',
    () => {
      expect(decodeHash('#?steps=5&seed=2')).toEqual({ config: { ...DEFAULT_CONFIG, steps: 5, seed: 2 }, issues: [] });
      expect(decodeHash('?v=2&algo=opid')).toEqual({ config: { ...DEFAULT_CONFIG, algo: 'opid' }, issues: [] });
      // Only one, and only first: a second ? is still part of an unknown key.
      expect(decodeHash('#??steps=5').issues).toEqual([
        { field: '?steps', message: 'unknown setting, ignored; did you mean steps?' },
      ]);
    },
  );

  it('numbers are decimal only, as the CLI accepts; empty keys and an empty envVersion are no settings', () => {
    for (const v of ['0x10', '0b11', '%205', '']) {
      const r = decodeHash(`#steps=${v}&seed=2`);
      expect(r.config).toEqual({ ...DEFAULT_CONFIG, seed: 2 });
      expect(r.issues.map((i) => i.field)).toEqual(['steps']);
    }
    expect(decodeHash('#steps=1e1').config.steps).toBe(10);
    expect(decodeHash('#&&&=&==&seed=5')).toEqual({ config: { ...DEFAULT_CONFIG, seed: 5 }, issues: [] });
    expect(decodeHash('#envVersion=&seed=5').issues).toEqual([]);
  });

  it(
    'an analyzer URL with credentials is refused even while the analyzer is unused, so it never reaches ' + 'a link',
    () => {
      const r = decodeHash('#analyzerUrl=http%3A%2F%2Fuser%3Apw%40h%2F&seed=3');
      expect(r.config).toEqual({ ...DEFAULT_CONFIG, seed: 3 });
      expect(r.issues.map((i) => i.field)).toEqual(['analyzerUrl']);
      expect(r.issues[0].message).not.toContain('pw');
    },
  );
});

describe('link notices: unknown keys and extra "#"', () => {
  it('an unknown key names the setting it most likely meant: its CLI flag, another spelling, a typo', () => {
    const r = decodeHash('#v=2&lr=0.001&seeds=3&tasks=4&LR_SCHEDULE=cosine&lerningRate=1&zzz=1');
    expect(r.config).toEqual(DEFAULT_CONFIG);
    expect(r.issues).toEqual([
      { field: 'lr', message: 'unknown setting, ignored; did you mean learningRate?' },
      { field: 'seeds', message: 'unknown setting, ignored; did you mean seed?' },
      { field: 'tasks', message: 'unknown setting, ignored; did you mean tasksPerStep?' },
      { field: 'LR_SCHEDULE', message: 'unknown setting, ignored; did you mean lrSchedule?' },
      { field: 'lerningRate', message: 'unknown setting, ignored; did you mean learningRate?' },
      { field: 'zzz', message: 'unknown setting, ignored' },
    ]);
    expect(linkIssueText(r.issues[0])).toBe('unknown setting, ignored; did you mean learningRate?');
    expect([
      nearestKey('opd-topk'),
      nearestKey('max-step-kl'),
      nearestKey('ckptSha265'),
      nearestKey('k0'),
      nearestKey(''),
    ]).toEqual(['opdTopK', 'maxStepKl', 'ckptSha256', null, null]);
  });

  it('a second "#" is named with the fix, and read as "&" so nothing is lost', () => {
    const r = decodeHash('#v=2&seed=3#steps=9');
    expect(r.config).toEqual({ ...DEFAULT_CONFIG, seed: 3, steps: 9 });
    expect(r.issues).toEqual([
      {
        field: '(link)',
        message:
          'holds 2 "#" signs where a link has one, before its settings (#v=2&seed=3…); each extra "#" ' +
          'was read as "&". To fix the link, replace the extra "#" with "&" (or remove it)',
      },
    ]);
    expect(decodeHash('##seed=4').config.seed).toBe(4);
    expect(decodeHash('##seed=4').issues.map((i) => i.field)).toEqual(['(link)']);
    expect(decodeHash('#seed=4').issues).toEqual([]);
  });

  it('reads a link percent-encoded once as a whole, and names it', () => {
    const r = decodeHash('#v%3D2%26algo%3Dopid%26steps%3D5%26backend%3Dwasm');
    expect(r.config).toEqual({ ...DEFAULT_CONFIG, algo: 'opid', steps: 5, backend: 'wasm' });
    expect(r.issues).toEqual([
      {
        field: '(link)',
        message:
          'this link was percent-encoded as a whole ("v%3D2%26algo%3Dopid%26steps%3D5%26backen…"); it ' +
          'was decoded once and read. It should read #v=2&algo=opid&steps=5&backend=wasm. Copy the link ' +
          'again with Copy link',
      },
    ]);
    // A single escaped key with no `=` inside is not a whole link: still one unknown setting.
    expect(decodeHash('#v=2&st%65ps').issues.map((i) => i.field)).toEqual(['steps']);
  });

  it('suggests the choice a truncated or mistyped choice value meant', () => {
    const r = decodeHash('#v=2&algo=op&lrSchedule=cosin&decoding=xyz');
    expect(r.config.algo).toBe(DEFAULT_CONFIG.algo);
    expect(r.issues).toEqual([
      {
        field: 'algo',
        message:
          'Invalid option: expected one of "grpo"|"opid"|"skill-grpo"|"agentic-opd" (accepted: one of ' +
          'grpo, opid, skill-grpo, agentic-opd); did you mean opid?',
      },
      {
        field: 'lrSchedule',
        message:
          'Invalid option: expected one of "constant"|"linear"|"cosine" (accepted: one of constant, ' +
          'linear, cosine); did you mean cosine?',
      },
      expect.objectContaining({ field: 'decoding', message: expect.not.stringContaining('did you mean') }),
    ]);
  });
});
