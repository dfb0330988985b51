import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';

/**
 * A batch over the 10 MiB body limit, sent over a real socket as an ERP sends it (Content-Length,
 * the body written in chunks): the client always reads the 413, never a reset or EPIPE while it is
 * still writing, and the connection is closed after the answer.
 */

let t: TestApp;
let port: number;
before(async () => {
  t = await buildTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
});
after(async () => { await t.close(); });

function putLarge(token: string, bytes: number): Promise<{ status: number; connection?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1', port, method: 'PUT', path: '/api/integration/catalogue/products', agent: false,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': String(bytes) },
    }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
    });
    req.on('error', reject);
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let sent = 0;
    // A chunk at a time with a pause between: the answer is ready long before the body is sent.
    const write = () => {
      if (sent >= bytes) {
        req.end();
        return;
      }
      const n = Math.min(chunk.length, bytes - sent);
      sent += n;
      req.write(n === chunk.length ? chunk : chunk.subarray(0, n), (error) => {
        if (error) reject(error);
        else setTimeout(write, 1);
      });
    };
    write();
  });
}

describe('a body over the limit', () => {
  it('is answered 413 that the client reads, every time, and the connection closes', async () => {
    const token = await t.token();
    for (let i = 0; i < 5; i++) {
      const answer = await putLarge(token, 11 * 1024 * 1024);
      assert.equal(answer.status, 413, `attempt ${i + 1}`);
      assert.equal(answer.connection, 'close');
      assert.equal(JSON.parse(answer.body).type, 'urn:portway:problem:body-too-large');
    }
  });
});
