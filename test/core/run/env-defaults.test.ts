/**
 * An environment's own run defaults: shop samples searches of up to 17 tokens, so its runs default to
 * maxActionTokens 20 (EnvSpec.maxActionTokens) while household keeps the schema's 12; a value given is kept; links
 * leave out the env's own default; switching env on the page moves a default value and keeps a chosen one.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, defaultFor, parseRunConfig } from '../../../src/core/run/config';
import { withField } from '../../../src/ui/state/draft-issues';
import { maxActionTokensFor } from '../../../src/core/pretrain/pretrain';
import { getEnvSpec } from '../../../src/core/envs/registry';

describe('per-environment maxActionTokens', () => {
  it('fills the env default only when absent', () => {
    expect(DEFAULT_CONFIG.maxActionTokens).toBe(12);
    expect(parseRunConfig({ env: 'shop' }).maxActionTokens).toBe(20);
    expect(parseRunConfig({ env: 'household' }).maxActionTokens).toBe(12);
    expect(parseRunConfig({}).maxActionTokens).toBe(12);
    expect(parseRunConfig({ env: 'shop', maxActionTokens: 14 }).maxActionTokens).toBe(14);
    expect(defaultFor('maxActionTokens', 'shop')).toBe(20);
    expect(defaultFor('maxActionTokens', 'household')).toBe(12);
    expect(maxActionTokensFor(getEnvSpec('shop'))).toBe(20);
    expect(maxActionTokensFor(getEnvSpec('household'))).toBe(12);
  });

  it('switching env moves a default value and keeps a chosen one', () => {
    const base = parseRunConfig({});
    expect(withField(base, 'env', 'shop')).toMatchObject({ env: 'shop', preset: 'default', maxActionTokens: 20 });
    const chosen = { ...base, maxActionTokens: 16 };
    expect(withField(chosen, 'env', 'shop').maxActionTokens).toBe(16);
    const onShop = parseRunConfig({ env: 'shop' });
    expect(withField(onShop, 'env', 'household')).toMatchObject({ env: 'household', maxActionTokens: 12 });
  });
});
