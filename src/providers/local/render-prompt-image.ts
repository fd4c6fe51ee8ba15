import { createHash } from 'node:crypto';
import type { SKRSContext2D } from '@napi-rs/canvas';
import { loadCanvas } from '../../platform/util/index.js';
import { ensureLocalImageFont } from './local-image-font.js';
import { wrapText } from './render-text-wrap.js';

/** What to draw: the prompt, the output size and which of the `n` images this is. */
export interface PromptRenderInput {
  prompt: string;
  width: number;
  height: number;
  /** Index among the `n` images of one call, so each image of a batch differs. */
  variant: number;
}

/** Deterministic bytes from the prompt and variant; the same input always draws the same picture. */
function seedBytes(prompt: string, variant: number): Buffer {
  return createHash('sha256').update(`${variant}\u0000${prompt}`).digest();
}

function hsl(byte: number, saturation: number, lightness: number): string {
  return `hsl(${Math.round((byte / 255) * 360)}, ${saturation}%, ${lightness}%)`;
}

function drawBackground(ctx: SKRSContext2D, seed: Buffer, width: number, height: number): void {
  const gradient = ctx.createLinearGradient(0, 0, width, height);
  gradient.addColorStop(0, hsl(seed[0] ?? 0, 55, 78));
  gradient.addColorStop(1, hsl(seed[1] ?? 0, 60, 62));
  ctx.fillStyle = gradient;
  ctx.fillRect(0, 0, width, height);
}

/** A few circles and rectangles placed and coloured from the seed. */
function drawShapes(ctx: SKRSContext2D, seed: Buffer, width: number, height: number): void {
  const count = 3 + ((seed[2] ?? 0) % 4);
  for (let i = 0; i < count; i += 1) {
    const b = (k: number): number => (seed[(4 + i * 4 + k) % seed.length] ?? 0) / 255;
    ctx.globalAlpha = 0.55;
    ctx.fillStyle = hsl(seed[(3 + i) % seed.length] ?? 0, 70, 50);
    const x = b(0) * width;
    const y = b(1) * height;
    const extent = (0.08 + b(2) * 0.22) * Math.min(width, height);
    if (i % 2 === 0) {
      ctx.beginPath();
      ctx.arc(x, y, extent, 0, Math.PI * 2);
      ctx.fill();
    } else {
      ctx.fillRect(x - extent, y - extent / 2, extent * 2, extent);
    }
  }
  ctx.globalAlpha = 1;
}

function drawPromptText(ctx: SKRSContext2D, family: string, prompt: string, width: number, height: number): void {
  const fontSize = Math.max(10, Math.round(Math.min(width, height) / 14));
  const lineHeight = Math.round(fontSize * 1.25);
  const margin = Math.round(Math.min(width, height) / 12);
  ctx.font = `${fontSize}px ${family}`;
  const maxLines = Math.max(1, Math.floor((height - 2 * margin) / lineHeight));
  const lines = wrapText(ctx, prompt, width - 2 * margin, maxLines);
  const blockHeight = lines.length * lineHeight;
  let y = Math.round((height - blockHeight) / 2) + fontSize;
  ctx.fillStyle = 'rgba(255, 255, 255, 0.75)';
  ctx.fillRect(margin / 2, y - fontSize - margin / 4, width - margin, blockHeight + margin / 2);
  ctx.fillStyle = '#111111';
  for (const line of lines) {
    ctx.fillText(line, margin, y);
    y += lineHeight;
  }
}

/**
 * Renders a real PNG for a prompt: seeded gradient background, a few shapes and the prompt
 * wrapped across the middle. Encoding runs on the canvas library's own thread pool.
 */
export async function renderPromptImage(input: PromptRenderInput): Promise<Buffer> {
  const { prompt, width, height, variant } = input;
  const { createCanvas, GlobalFonts } = await loadCanvas();
  const family = ensureLocalImageFont(GlobalFonts);
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  const seed = seedBytes(prompt, variant);
  drawBackground(ctx, seed, width, height);
  drawShapes(ctx, seed, width, height);
  drawPromptText(ctx, family, prompt, width, height);
  return canvas.encode('png');
}

/**
 * A transparent PNG of the given size with the prompt as a caption band along the bottom,
 * laid over edited images.
 */
export async function renderCaptionOverlay(prompt: string, width: number, height: number): Promise<Buffer> {
  const { createCanvas, GlobalFonts } = await loadCanvas();
  const family = ensureLocalImageFont(GlobalFonts);
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  const fontSize = Math.max(10, Math.round(Math.min(width, height) / 24));
  const pad = Math.round(fontSize / 2);
  ctx.font = `${fontSize}px ${family}`;
  const lines = wrapText(ctx, prompt, width - 2 * pad, 2);
  const bandHeight = lines.length * Math.round(fontSize * 1.25) + 2 * pad;
  ctx.fillStyle = 'rgba(0, 0, 0, 0.6)';
  ctx.fillRect(0, height - bandHeight, width, bandHeight);
  ctx.fillStyle = '#ffffff';
  let y = height - bandHeight + pad + fontSize;
  for (const line of lines) {
    ctx.fillText(line, pad, y);
    y += Math.round(fontSize * 1.25);
  }
  return canvas.encode('png');
}
