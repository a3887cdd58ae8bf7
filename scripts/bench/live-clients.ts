/**
 * Child process of scripts/bench/alerts-live.ts: opens N WebSocket clients on the hub's live
 * channel (so their parsing does not share the hub's process or its RSS), subscribes them to
 * `detections:live`, and records when each detection frame arrives (epoch ms).
 */
import WebSocket from 'ws';

interface Start {
  url: string;
  cookie: string;
  count: number;
}

const arrivals = new Map<string, number[]>();
const sockets: WebSocket[] = [];

async function open({ url, cookie, count }: Start): Promise<void> {
  for (let i = 0; i < count; i++) {
    const ws = new WebSocket(url, { headers: { cookie } });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.on('message', (data) => {
      const at = performance.timeOrigin + performance.now();
      const m = JSON.parse(data.toString()) as { type: string; payload: { id?: string } };
      if (m.type === 'ping') ws.send('{"type":"pong"}');
      if (m.type === 'detection' && m.payload.id) {
        const list = arrivals.get(m.payload.id) ?? [];
        list.push(at);
        arrivals.set(m.payload.id, list);
      }
    });
    ws.send(JSON.stringify({ type: 'subscribe', payload: { feed: 'detections:live' } }));
    sockets.push(ws);
  }
}

process.on('message', (message: { start?: Start; report?: boolean; stop?: boolean }) => {
  if (message.start) {
    open(message.start).then(
      () => process.send?.({ ready: true }),
      (err: unknown) => process.send?.({ error: String(err) }),
    );
  } else if (message.report) {
    process.send?.({ arrivals: Object.fromEntries(arrivals) });
    arrivals.clear();
  } else if (message.stop) {
    for (const ws of sockets) ws.close();
    setTimeout(() => process.exit(0), 200);
  }
});
