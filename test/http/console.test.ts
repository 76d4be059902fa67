// The web console's files as the gateway serves them: public (the page asks for a token
// itself), with a CSP that allows nothing from elsewhere, ETags, and no effect on the API's
// own access control. The files are bundled from src/console as `npm run dev` does.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import request from 'supertest';
import { appOverKafka } from './app-over-kafka.js';
import { loadConsoleAssets, type ConsoleAssets } from '../../src/http/console.js';
import { roleTokens } from './auth-helpers.js';
import { FakeKafka } from './fake-kafka.js';

describe('web console files', () => {
  let assets: ConsoleAssets;
  let app: ReturnType<typeof appOverKafka>;
  before(async () => {
    const loaded = await loadConsoleAssets();
    assert.ok(loaded.assets, 'reason' in loaded ? loaded.reason : '');
    assets = loaded.assets;
    app = appOverKafka({ kafka: new FakeKafka(), auth: roleTokens().auth, console: assets });
  });

  it('are bundled from source when running from source', () => {
    assert.equal(assets.origin, 'bundled-at-start');
    assert.deepEqual([...assets.files.keys()].sort(), ['/', '/console/app.css', '/console/app.js']);
  });

  it('/ is the page, public even with authentication on, with a strict CSP; the API still needs a token', async () => {
    const page = await request(app).get('/');
    assert.equal(page.status, 200);
    assert.match(page.headers['content-type'], /^text\/html/);
    assert.match(page.text, /<script type="module" src="\/console\/app\.js"><\/script>/);
    assert.match(page.headers['content-security-policy'], /default-src 'none'; script-src 'self'/);
    assert.doesNotMatch(page.text, /(src|href)="https?:/, 'nothing loaded from elsewhere');
    const js = await request(app).get('/console/app.js');
    assert.equal(js.status, 200);
    assert.match(js.headers['content-type'], /^text\/javascript/);
    assert.ok(js.text.length > 10_000);
    assert.equal((await request(app).get('/topics')).status, 401);
    assert.equal((await request(app).get('/console/nope.js')).status, 401, 'anything else is the API: authenticated first');
  });

  it('answers 304 to a matching ETag', async () => {
    const first = await request(app).get('/console/app.css');
    const again = await request(app).get('/console/app.css').set('If-None-Match', first.headers.etag);
    assert.equal(again.status, 304);
  });

  it('without assets, / is not served', async () => {
    const bare = appOverKafka({ kafka: new FakeKafka() });
    assert.equal((await request(bare).get('/')).status, 404);
  });
});
