/**
 * The docs say what the code does (#18 points 12-13): Anthropic's 529 is `server_error` in
 * docs/contract.md as in the classifier, and the README states how a multi-model response is billed.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyError } from '../../src/core/errors/status-map.ts';
import { errorRules, parseErrorBody } from '../../src/providers/anthropic/errors.ts';
import { sharedErrorRules } from '../../src/providers/common/errors.ts';
import { repoRoot } from '../support/fixtures.ts';

const read = (file: string) => readFileSync(resolve(repoRoot, file), 'utf8').replace(/\s+/g, ' ');

describe('docs agree with the code', () => {
  it("docs/contract.md: Anthropic's 529 overloaded_error is server_error, as classified", () => {
    const body = parseErrorBody(
      '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    );
    expect(classifyError(529, body, [...sharedErrorRules, ...errorRules]).errorClass).toBe('server_error');
    const contract = read('docs/contract.md');
    expect(contract).not.toMatch(/529[^.;]*backs off as `rate_limit`/);
    expect(contract).toMatch(/529 `overloaded_error`[^;]*is `server_error`/);
  });

  it('README: how a multi-model response (advisor, fallback iterations) is billed', () => {
    const readme = read('README.md');
    expect(readme).toMatch(/usage\.byModel/);
    expect(readme).toMatch(/priced at (that|each) model's (own )?rate/);
  });
});
