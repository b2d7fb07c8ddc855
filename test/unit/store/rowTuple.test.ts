import * as assert from 'assert';
import { decodeRows, encodeRows, paramsOf, type RowTuple } from '../../../src/store/rowTuple';

describe('journal record rows', () => {
  const rows: RowTuple[] = [
    ['s', 1, 'anchor', 'session/start', 'session/start', 1, null, null, null, null, null, '{"name":"session/start","state":{}}', '{}'],
    ['s', 2, 'message', 'message/user', null, 2, 'm1', null, 'sent', 1.5, 'user', '{"content":"数据库 \\"quoted\\" é 🎉"}', '{"k":[1,2]}'],
    ['s', 3, 'tool_result', 'read', null, 3, 'm1', 't1', 'ok', null, null, '{"output":""}', ''],
  ];

  it('round-trips every column, payload and meta byte for byte', () => {
    const decoded = decodeRows(encodeRows(rows.map(paramsOf)));
    assert.deepStrictEqual(
      decoded.map((p) => [...p.slice(0, 11), Buffer.from(p[11] as Uint8Array).toString('utf8'), Buffer.from(p[12] as Uint8Array).toString('utf8')]),
      rows,
    );
  });

  it('stores payload text once, unescaped', () => {
    const body = encodeRows([paramsOf(rows[1])]);
    assert.ok(body.includes(Buffer.from(rows[1][11])), 'the payload text stands in the record as it is');
    assert.ok(body.length < JSON.stringify([rows[1]]).length + 12, `${body.length} bytes`);
  });

  it('refuses a malformed body instead of inserting part of it', () => {
    const body = encodeRows(rows.map(paramsOf));
    assert.throws(() => decodeRows(body.subarray(0, body.length - 3)), /runs past the record/);
    assert.throws(() => decodeRows(Buffer.concat([body, Buffer.from([1, 0])])), /row frame cut short/);
    const badHead = Buffer.from('[1,2]');
    const frame = Buffer.alloc(12);
    frame.writeUInt32LE(badHead.length, 0);
    assert.throws(() => decodeRows(Buffer.concat([frame, badHead])), /has 2 columns/);
  });
});
