/**
 * The analyzer factory and the run schema with an env that brings no embedded analyzer and names another default
 * preset: a registry holding, beside the real envs, `toy` (the first real env's spec without `analyzer`,
 * `analyzerPrompt` and `commands`, presets `small` (default) and `big`). `heuristic` then fails naming the env and
 * the alternatives; `oracle` and `http` work; the schema gives the env its own default preset.
 */
import { describe, expect, it, vi } from 'vitest';

vi.mock('../../../src/core/envs/registry', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/core/envs/registry')>();
  const first = real.ENV_SPECS[0];
  const toy = {
    ...first,
    name: 'toy',
    presets: ['small', 'big'],
    defaultPreset: 'small',
    presetSummaries: undefined,
    taskTypes: () => first.taskTypes(first.defaultPreset),
    create: () => first.create(first.defaultPreset),
    analyzer: undefined,
    analyzerPrompt: undefined,
    commands: undefined,
  };
  const specs = [...real.ENV_SPECS, toy];
  const getEnvSpec = (name: string) => {
    const s = specs.find((x) => x.name === name);
    if (!s) throw new Error(`unknown env "${name}"`);
    return s;
  };
  return {
    ...real,
    ENV_SPECS: specs,
    ENV_NAMES: specs.map((s) => s.name),
    getEnvSpec,
    defaultPresetOf: (name: string) => getEnvSpec(name).defaultPreset,
  };
});

const { makeAnalyzer, noHeuristicMessage } = await import('../../../src/core/analyzer');
const { HttpAnalyzer } = await import('../../../src/core/analyzer/http');
const { OracleAnalyzer } = await import('../../../src/core/analyzer/oracle');
const { DEFAULT_ENV, getEnvSpec } = await import('../../../src/core/envs/registry');
const { ConfigError, DEFAULT_CONFIG, defaultFor, describeField, parseRunConfig, parseRunConfigLenient } =
  await import('../../../src/core/run/config');

const HTTP = { analyzerUrl: 'http://127.0.0.1:9', analyzerModel: 'm' };

describe('an env without an embedded analyzer', () => {
  it('heuristic fails naming the env and the analyzers that work with any env', () => {
    const cfg = { ...DEFAULT_CONFIG, algo: 'opid' as const, env: 'toy', preset: 'small' };
    expect(() => makeAnalyzer(cfg)).toThrow(noHeuristicMessage('toy'));
    expect(noHeuristicMessage('toy')).toBe(
      'the toy environment has no embedded heuristic analyzer; use --analyzer oracle (its expert, privileged) or ' +
        '--analyzer http (an OpenAI-compatible server: --analyzer-url, --analyzer-model)',
    );
    expect(makeAnalyzer({ ...cfg, analyzer: 'oracle' })).toBeInstanceOf(OracleAnalyzer);
    expect(makeAnalyzer({ ...cfg, analyzer: 'http', ...HTTP })).toBeInstanceOf(HttpAnalyzer);
  });

  it("the default env's heuristic is its own hook", () => {
    const a = makeAnalyzer(DEFAULT_CONFIG);
    expect(a.name).toBe('heuristic');
    expect(getEnvSpec(DEFAULT_ENV).analyzer).toBeDefined();
  });

  it('the run schema refuses heuristic for it with an analyzer that uses one, and a link falls back to oracle', () => {
    let err: unknown;
    try {
      parseRunConfig({ env: 'toy', algo: 'opid' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as InstanceType<typeof ConfigError>).issues).toEqual([
      {
        field: 'analyzer',
        message:
          'the toy environment has no embedded heuristic analyzer; choose oracle (its expert, privileged) or ' +
          'http (an OpenAI-compatible server)',
      },
    ]);
    expect(parseRunConfig({ env: 'toy', algo: 'grpo' }).analyzer).toBe('heuristic'); // unused: no issue
    const r = parseRunConfigLenient({ env: 'toy', algo: 'opid' });
    expect(r.config.analyzer).toBe('oracle');
    expect(r.issues[0].message).toMatch(/using the oracle analyzer \(toy has no embedded one; oracle is privileged\)$/);
  });
});

describe("an env's own default preset", () => {
  it('is the preset of a config naming the env and no preset; links leave out that one', () => {
    expect(parseRunConfig({ env: 'toy' }).preset).toBe('small');
    expect(parseRunConfig({ env: 'toy', preset: 'big' }).preset).toBe('big');
    expect(parseRunConfigLenient({ env: 'toy' }).config.preset).toBe('small');
    expect(parseRunConfig({}).preset).toBe(getEnvSpec(DEFAULT_ENV).defaultPreset);
    expect(defaultFor('preset', 'toy')).toBe('small');
    expect(defaultFor('steps', 'toy')).toBe(DEFAULT_CONFIG.steps);
  });

  it("a preset of another env is refused naming the env's presets; the lenient parse uses the env's default", () => {
    expect(() => parseRunConfig({ env: 'toy', preset: 'easy' })).toThrow(/toy has no preset "easy"; one of small, big/);
    const r = parseRunConfigLenient({ env: 'toy', preset: 'nope' });
    expect(r.config.preset).toBe('small');
    expect(r.issues[0].message).toMatch(/not accepted, using small \(the default\)$/);
    expect(describeField('preset')).toMatch(/toy: small, big\)$/);
  });
});
