import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** Small node:http helpers shared by the simulators. Loopback only, always. */

export const LOOPBACK = '127.0.0.1';

export interface SimulatorHandle {
  url: string;
  port: number;
  close(): Promise<void>;
}

export function listenLoopback(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, LOOPBACK, () => {
      server.off('error', reject);
      const address = server.address();
      if (address === null || typeof address === 'string') reject(new Error('no TCP address'));
      else resolve(address.port);
    });
  });
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Request body, capped (1 MiB is far above any request a camera API receives). */
export async function readRequestBody(req: IncomingMessage, max = 1024 * 1024): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    total += buf.length;
    if (total > max) throw new Error('request body too large');
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

export function send(res: ServerResponse, status: number, contentType: string, body: string | Uint8Array, headers: Record<string, string> = {}): void {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  res.writeHead(status, { 'content-type': contentType, 'content-length': String(bytes.length), ...headers });
  res.end(bytes);
}
