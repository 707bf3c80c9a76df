/** The env registry: lookup by name, and an unknown name listing the accepted ones. */
import { describe, expect, it } from 'vitest';
import { ENV_NAMES, getEnvSpec } from '../../../src/core/envs/registry';
import { household } from '../../../src/core/envs/household';
import { shop } from '../../../src/core/envs/shop';
import { searchqa } from '../../../src/core/envs/searchqa';
import { ENV_NAMES as CONFIG_ENV_NAMES } from '../../../src/core/run/config';

describe('env registry', () => {
  it('finds household, shop and searchqa', () => {
    expect(ENV_NAMES).toEqual(['household', 'shop', 'searchqa']);
    expect(getEnvSpec('household')).toBe(household);
    expect(getEnvSpec('shop')).toBe(shop);
    expect(getEnvSpec('searchqa')).toBe(searchqa);
  });

  it('agrees with the run config schema on env names', () => {
    expect([...ENV_NAMES]).toEqual([...CONFIG_ENV_NAMES]);
  });

  it('names the accepted values for an unknown env', () => {
    expect(() => getEnvSpec('foo')).toThrow('unknown env "foo"; accepted: household, shop, searchqa');
  });
});
