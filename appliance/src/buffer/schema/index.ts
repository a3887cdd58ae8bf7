export { detections, UPLOAD_STATES, type UploadState } from './detections.ts';
export { images } from './images.ts';
export { recentReads, READ_OUTCOMES, type ReadOutcome } from './recent-reads.ts';
export { cursors } from './cursors.ts';
export { counters, BUFFER_COUNTERS } from './counters.ts';
export { rejected } from './rejected.ts';
