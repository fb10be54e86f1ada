/** Argument parsing of the `switchyard` commands: declared options only, one problem named per error. */
import { describe, expect, it } from 'vitest';
import { type ArgumentSpec, closest, parseArguments, UsageError } from './args.ts';

const spec: ArgumentSpec = {
  options: {
    port: { type: 'string', description: 'port' },
    verbose: { type: 'boolean', description: 'verbose' },
  },
  positionals: ['file'],
};

function usageError(args: string[]): string {
  try {
    parseArguments(args, spec);
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  throw new Error(`no usage error for ${args.join(' ')}`);
}

describe('parseArguments', () => {
  it('returns declared options and positionals', () => {
    expect(parseArguments(['a.txt', '--port', '8', '--verbose'], spec)).toEqual({
      values: { port: '8', verbose: true },
      positionals: ['a.txt'],
      help: false,
    });
    expect(parseArguments(['--port=9', 'a.txt'], spec).values).toEqual({ port: '9' });
  });

  it('names an unknown option and suggests the closest declared one', () => {
    expect(usageError(['a', '--prot', '1'])).toBe("unknown option '--prot' (did you mean '--port'?)");
    expect(usageError(['a', '--verbos'])).toBe("unknown option '--verbos' (did you mean '--verbose'?)");
    expect(usageError(['a', '--zzz'])).toBe("unknown option '--zzz'");
    expect(usageError(['a', '-x'])).toBe("unknown option '-x'");
  });

  it('rejects a missing value, a value on a flag, and wrong positional counts', () => {
    expect(usageError(['a', '--port'])).toBe("option '--port' needs a value");
    expect(usageError(['a', '--port', '--verbose'])).toBe("option '--port' needs a value");
    expect(usageError(['a', '--verbose=yes'])).toBe("option '--verbose' takes no value");
    expect(usageError([])).toBe('missing argument <file>');
    expect(usageError(['a', 'b'])).toBe("unexpected argument 'b'");
  });

  it('reports only --help when it is present, whatever else is wrong', () => {
    expect(parseArguments(['--prot', '1', '--help'], spec)).toEqual({
      values: {},
      positionals: [],
      help: true,
    });
    expect(parseArguments(['-h'], spec).help).toBe(true);
  });
});

describe('closest', () => {
  const commands = ['demo', 'emulator', 'replay', 'help'];

  it('suggests a command one or two edits away, a transposition counting as one', () => {
    expect(closest('demoo', commands)).toBe('demo');
    expect(closest('emultaor', commands)).toBe('emulator');
    expect(closest('REPLAY', commands)).toBe('replay');
    expect(closest('prot', ['port', 'api'])).toBe('port');
  });

  it('suggests a command the word is a prefix of', () => {
    expect(closest('emu', commands)).toBe('emulator');
  });

  it('suggests nothing for an unrelated word', () => {
    expect(closest('status', commands)).toBeUndefined();
    expect(closest('x', commands)).toBeUndefined();
  });
});
