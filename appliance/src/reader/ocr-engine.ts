/**
 * The two ONNX models behind one small interface: `detect` gives the text probability map of a
 * prepared frame, `recognize` the per-step character probabilities of a prepared text crop. The
 * rest of the reader only sees arrays, so its logic is testable without a model.
 */
import { readFileSync } from 'node:fs';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { alphabetFromDictionary, type Alphabet } from './ctc.ts';
import type { ModelFiles } from './model-files.ts';

export interface RecognizerOutput {
  probs: Float32Array;
  steps: number;
  classes: number;
}

export interface OcrEngine {
  readonly alphabet: Alphabet;
  /** `input` is 1×3×height×width; returns the height×width text probability map. */
  detect(input: Float32Array, width: number, height: number): Promise<Float32Array>;
  /** `input` is 1×3×height×width (height 48). */
  recognize(input: Float32Array, width: number, height: number): Promise<RecognizerOutput>;
  close(): Promise<void>;
}

export async function openOcrEngine(files: ModelFiles, threads: number): Promise<OcrEngine> {
  const options: InferenceSession.SessionOptions = {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    // The arena keeps the memory of the largest run and reuses it: with the coarse detection in
    // tiles (detect-tiles.ts) that is about 100 MB, and frames are read as fast as without it
    // (glibc, given the same blocks back and forth, held more and took longer). Memory patterns
    // stay off: one plan per input size, and every close-up and text line has its own.
    enableCpuMemArena: true,
    enableMemPattern: false,
  };
  const detector = await InferenceSession.create(files.detection, options);
  const recognizer = await InferenceSession.create(files.recognition, options);
  const alphabet = alphabetFromDictionary(readFileSync(files.dictionary, 'utf8').split('\n'));
  return {
    alphabet,
    async detect(input, width, height) {
      const name = detector.inputNames[0] ?? 'x';
      const result = await detector.run({ [name]: new Tensor('float32', input, [1, 3, height, width]) });
      const output = result[detector.outputNames[0] ?? ''];
      if (!output) throw new Error('text detector returned no output');
      return output.data as Float32Array;
    },
    async recognize(input, width, height) {
      const name = recognizer.inputNames[0] ?? 'x';
      const result = await recognizer.run({ [name]: new Tensor('float32', input, [1, 3, height, width]) });
      const output = result[recognizer.outputNames[0] ?? ''];
      if (!output) throw new Error('text recognizer returned no output');
      const [, steps = 0, classes = 0] = output.dims;
      return { probs: output.data as Float32Array, steps, classes };
    },
    async close() {
      await detector.release();
      await recognizer.release();
    },
  };
}
