import yauzl from 'yauzl';

/** Every file of a zip (name -> bytes), for verification. Refuses absurd archives. */
export async function readZipFiles(path: string, maxTotalBytes = 2 * 1024 ** 3): Promise<Map<string, Uint8Array>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true, strictFileNames: true }, (err, z) => (err || !z ? reject(err ?? new Error('no zip')) : resolve(z))),
  );
  const files = new Map<string, Uint8Array>();
  let total = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('error', reject);
      zip.on('end', () => resolve());
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName.endsWith('/')) {
          zip.readEntry();
          return;
        }
        total += entry.uncompressedSize;
        if (total > maxTotalBytes) {
          reject(new Error('the archive unpacks to more than 2 GiB: not an export of this hub'));
          return;
        }
        zip.openReadStream(entry, (err, stream) => {
          if (err || !stream) {
            reject(err ?? new Error(`cannot read ${entry.fileName}`));
            return;
          }
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('error', reject);
          stream.on('end', () => {
            files.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
  return files;
}
