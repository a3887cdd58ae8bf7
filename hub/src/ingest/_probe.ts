import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import postgres from 'postgres';
import { request } from 'undici';
import { openDatabase } from '../db/client.ts';
import { verifyChain } from '../db/chain.ts';
import { createLog } from '../log.ts';
import { encodeBatch, sampleDetection, startTestHub } from '../ingest/test-support.ts';

const adminUrl = process.env['DATABASE_URL']!;
const name = `alpr_probe_${randomBytes(4).toString('hex')}`;
const admin = postgres(adminUrl, { max: 1, onnotice: () => undefined });
await admin.unsafe(`CREATE DATABASE ${name}`);
const url = new URL(adminUrl); url.pathname = `/${name}`;
const db = await openDatabase({ url: url.toString(), log: createLog('silent'), maxConnections: 10 });
const sink = new PassThrough(); sink.on('data', (c: Buffer) => { const s = c.toString(); if (/"level":(40|50)/.test(s)) console.log(s.slice(0, 1500)); });
const hub = await startTestHub({ db, log: createLog('warn', sink) });
const one = async () => {
  const { body, contentType } = encodeBatch(Array.from({ length: 50 }, () => ({ detection: sampleDetection() })));
  const res = await request(`${hub.url}/api/v1/detections/batch`, { method: 'POST', headers: { 'content-type': contentType, 'x-api-key': hub.apiKey }, body });
  const j = await res.body.json() as any;
  return `${res.statusCode} ${j.backpressure?.reason ?? j.error?.message ?? ''}`;
};
const out: string[] = [];
await Promise.all(Array.from({length: 8}, () => 0).map(async () => { for (let i = 0; i < 40; i++) out.push(await one()); }));
console.log(out.join('\n'));
console.log(await verifyChain(db, hub.collectorId));
console.log(await db.sql('SELECT count(*) FROM detections'), await db.sql('SELECT * FROM collector_chain_heads'));
await hub.close(); await db.close(); await admin.unsafe(`DROP DATABASE ${name} WITH (FORCE)`); await admin.end();
