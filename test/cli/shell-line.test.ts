/** cli/args.ts `shellLine`: recorded commands paste back into a POSIX shell as the same arguments. */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellLine } from '../../cli/args';

describe('shellLine', () => {
  it('writes plain arguments as is and quotes the rest', () => {
    expect(
      shellLine(['--env', 'searchqa', '--type-weights', 'popqa=0.2,musique=4', '--out', 'runs/a.safetensors']),
    ).toBe('--env searchqa --type-weights popqa=0.2,musique=4 --out runs/a.safetensors');
    expect(shellLine(['--type-weights', ' popqa=0.5 , musique=4', ''])).toBe(
      "--type-weights ' popqa=0.5 , musique=4' ''",
    );
    expect(shellLine(["it's", '$HOME', 'a"b'])).toBe(`'it'\\''s' '$HOME' 'a"b'`);
  });

  it('a shell reading the line gets the arguments back', () => {
    const argv = ['--mix', 'noisy=1, step=2', "o'brien", '$(touch x)', '*', 'plain'];
    const out = execFileSync('/bin/sh', ['-c', `printf '%s\\n' ${shellLine(argv)}`], { encoding: 'utf8' });
    expect(out.split('\n').slice(0, -1)).toEqual(argv);
  });
});
