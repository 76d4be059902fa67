import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { callerClientId, clientIdPatternError, escapePrincipal } from '../../src/domain/caller-client-id.js';

describe('callerClientId', () => {
  it('renders the principal into the pattern, readable characters kept', () => {
    assert.equal(callerClientId('kafka-admin-gateway/{principal}', 'alice'), 'kafka-admin-gateway/alice');
    assert.equal(callerClientId('gw-{principal}', 'ci.bot@example.com'), 'gw-ci.bot@example.com');
    assert.equal(callerClientId('{principal}/{principal}', 'a'), 'a/a');
  });

  it('percent-encodes everything else, % included, so the mapping is one-to-one', () => {
    assert.equal(escapePrincipal('CN=svc, O=acme'), 'CN%3Dsvc%2C%20O%3Dacme');
    assert.equal(escapePrincipal('a%41'), 'a%2541');
    assert.equal(escapePrincipal('é'), '%C3%A9');
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        fc.pre(a !== b);
        assert.notEqual(escapePrincipal(a), escapePrincipal(b));
      }),
    );
    fc.assert(fc.property(fc.string(), (p) => assert.equal(decodeURIComponent(escapePrincipal(p)), p)));
  });

  it('rejects patterns without the placeholder, with whitespace or stray braces', () => {
    assert.equal(clientIdPatternError('kafka-admin-gateway/{principal}'), undefined);
    assert.match(clientIdPatternError('kafka-admin-gateway') ?? '', /must contain \{principal\}/);
    assert.match(clientIdPatternError('gw {principal}') ?? '', /whitespace/);
    assert.match(clientIdPatternError('gw/{user}/{principal}') ?? '', /brace/);
  });
});
