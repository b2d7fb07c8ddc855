import * as assert from 'assert';
import { checkBaseUrl } from '../../../../src/agent/model/baseUrl';

const reasonOf = (raw: string): string => {
  const checked = checkBaseUrl(raw);
  assert.ok(!checked.ok, `${raw} is refused`);
  return checked.reason;
};

describe('checkBaseUrl', () => {
  it('accepts https anywhere and plain http to this machine only, without trailing slashes', () => {
    for (const [raw, url, host] of [
      ['https://api.example.com/v1/', 'https://api.example.com/v1', 'api.example.com'],
      ['  http://127.0.0.1:11434/v1 ', 'http://127.0.0.1:11434/v1', '127.0.0.1:11434'],
      ['http://127.9.8.7/v1', 'http://127.9.8.7/v1', '127.9.8.7'],
      ['http://localhost:8080/v1', 'http://localhost:8080/v1', 'localhost:8080'],
      ['http://LOCALHOST:8080', 'http://LOCALHOST:8080', 'localhost:8080'],
      ['http://[::1]:8000/v1', 'http://[::1]:8000/v1', '[::1]:8000'],
      ['http://[0:0::1]/v1', 'http://[0:0::1]/v1', '[::1]'],
      ['http://127.1:9/v1', 'http://127.1:9/v1', '127.0.0.1:9'],
    ]) {
      assert.deepStrictEqual(checkBaseUrl(raw), { ok: true, url, host }, raw);
    }
  });

  it('refuses plain http to any other host, saying to use https', () => {
    for (const raw of [
      'http://example.com/v1',
      'http://192.168.1.5:11434/v1',
      'http://10.0.0.1',
      'http://[::2]/v1',
      'http://localhost.evil.example/v1',
      'http://128.0.0.1/v1',
      'http://0.0.0.0:8080',
    ]) {
      assert.match(reasonOf(raw), /uses plain http to .*; use https \(plain http is allowed only for localhost, 127\.0\.0\.0\/8 and ::1\)$/, raw);
    }
  });

  it('refuses a user name or password in the address, without repeating them', () => {
    for (const raw of [
      'http://user:hunter2@127.0.0.1:11434/v1',
      'https://hunter2@api.example.com/v1',
      'https://:hunter2@api.example.com',
      'http://user:hunter2@exa mple.com/',
      'user:hunter2@example.com',
    ]) {
      const reason = reasonOf(raw);
      assert.ok(!reason.includes('hunter2'), reason);
    }
    assert.strictEqual(
      reasonOf('https://me:hunter2@api.example.com/v1'),
      '"https://…@api.example.com/v1" holds a user name or password, which would go with every request and into logs; give the address without them (the API key is set on its own)',
    );
  });

  it('refuses what is not an http(s) URL', () => {
    for (const raw of ['localhost:11434/v1', 'ftp://example.com/v1', 'not a url', 'file:///etc/passwd'])
      assert.strictEqual(reasonOf(raw), `"${raw}" is not an http(s) URL`);
  });
});
