/**
 * Whether the pictures on a page really decode. A broken JPEG still gives a finished <img>
 * (`complete` is true once loading fails too), so the check is `naturalWidth`: 0 when the
 * browser could not decode the bytes, the picture's width when it could.
 */
import type { Page } from 'playwright-core';

export interface ImageState {
  src: string;
  alt: string;
  complete: boolean;
  naturalWidth: number;
}

/** Every <img> with a source on the page, once each has finished loading (or failed). */
export async function imagesOn(page: Page): Promise<ImageState[]> {
  await page.waitForFunction(() => [...document.images].every((img) => !img.getAttribute('src') || img.complete), undefined, { timeout: 30_000 });
  return page.evaluate(() =>
    [...document.images]
      .filter((img) => img.getAttribute('src'))
      .map((img) => ({ src: img.getAttribute('src') ?? '', alt: img.alt, complete: img.complete, naturalWidth: img.naturalWidth })),
  );
}

/** The images the browser could not decode. */
export const broken = (images: readonly ImageState[]): ImageState[] => images.filter((i) => i.naturalWidth === 0);
