import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PNG } from "pngjs";
import { chromium, type Browser, type Page } from "playwright-core";

/** Debian's chromium, which `.ci/run` installs; playwright's own browser download is not used. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Whether the browser tests can run here. */
export const hasChromium = existsSync(CHROMIUM);

/** Headless Chromium with no sandbox (root in CI), no GPU and no background traffic. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

/** How much a screenshot varies: the luminance's standard deviation (0 = one flat color) and its distinct colors. */
export function pixelSpread(png: Buffer): { stddev: number; colors: number; width: number; height: number } {
  const img = PNG.sync.read(png);
  let sum = 0;
  let sq = 0;
  const colors = new Set<number>();
  const n = img.width * img.height;
  for (let i = 0; i < n; i++) {
    const r = img.data[i * 4]!;
    const g = img.data[i * 4 + 1]!;
    const b = img.data[i * 4 + 2]!;
    const y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    sum += y;
    sq += y * y;
    if (colors.size < 10_000) colors.add((r << 16) | (g << 8) | b);
  }
  const mean = sum / n;
  return { stddev: Math.sqrt(Math.max(0, sq / n - mean * mean)), colors: colors.size, width: img.width, height: img.height };
}

/**
 * Takes a full-page screenshot, returns its pixel spread, and when
 * CONSOLE_SCREENSHOTS names a directory (the README's come from
 * `CONSOLE_SCREENSHOTS=docs npx vitest run test/console/console.test.ts`) keeps it there.
 */
export async function screenshot(page: Page, name: string): Promise<ReturnType<typeof pixelSpread>> {
  const png = await page.screenshot({ fullPage: true });
  const dir = process.env.CONSOLE_SCREENSHOTS;
  if (dir) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${name}.png`), png);
  }
  return pixelSpread(png);
}
