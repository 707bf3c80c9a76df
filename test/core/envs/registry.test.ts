/** The env registry: lookup by name, and an unknown name listing the accepted ones. */
import { describe, expect, it } from 'vitest';
import { ENV_NAMES, getEnvSpec } from '../../../src/core/envs/registry';
import { household } from '../../../src/core/envs/household';
import { ENV_NAMES as CONFIG_ENV_NAMES } from '../../../src/core/run/config';

describe('env registry', () => {
  it('finds household', () => {
    expect(ENV_NAMES).toEqual(['household']);
    expect(getEnvSpec('household')).toBe(household);
  });

  it('agrees with the run config schema on env names', () => {
    expect([...ENV_NAMES]).toEqual([...CONFIG_ENV_NAMES]);
  });

  it('names the accepted values for an unknown env', () => {
    expect(() => getEnvSpec('foo')).toThrow('unknown env "foo"; accepted: household');
  });
});
