import { parentPort } from 'node:worker_threads';
import { cropJpeg, thumbnailOfJpeg } from './frame-pixels.ts';
import type { FrameJob, FrameAnswer } from './frame-jobs.ts';

/**
 * The frame worker (frame-jobs.ts starts it): decodes camera frames for the change check and
 * encodes plate crops, one job at a time, off the appliance's main loop.
 */
parentPort?.on('message', (job: FrameJob) => {
  let answer: FrameAnswer;
  try {
    answer =
      job.op === 'thumbnail'
        ? { id: job.id, ok: true, op: 'thumbnail', ...thumbnailOfJpeg(job.jpeg) }
        : { id: job.id, ok: true, op: 'crop', jpeg: cropJpeg(job.jpeg, job.box) };
  } catch (error) {
    answer = { id: job.id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(answer);
});
