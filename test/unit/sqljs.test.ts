import * as assert from 'assert';
import { sqliteVersion } from '../../src/store/sqljs';

describe('sql.js loader', () => {
  it('loads the WASM build and reports a SQLite 3 version', async () => {
    assert.match(await sqliteVersion(), /^3\.\d+\.\d+$/);
  });
});
