// PDF extraction speed: Periscope's renderPdf (PDF.js via unpdf) on a large real PDF, with poppler's pdftotext
// beside it when installed. The PDF is typeset at run time by groff (or enscript + ps2pdf) into the temp
// directory, from the readability corpus text when it is beside this checkout, else from generated prose.
// Run: npx node bench/pdf.bench.ts [pages] [rounds]      (needs: apt-get install groff, or enscript ghostscript)
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [targetPages = 500, rounds = 3] = process.argv
  .slice(2)
  .filter((arg) => /^\d+$/.test(arg))
  .map(Number);
const CORPUS = new URL('../../shared/corpus/readability/', import.meta.url).pathname;
const CHARS_PER_PAGE = 4300; // groff -ms, 10 pt on letter paper: about 4 300 characters a page

const has = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;

/** Article texts: the corpus's expected output stripped of markup, or generated prose. */
function articles(): Array<{ title: string; paragraphs: string[] }> {
  if (existsSync(CORPUS)) {
    const found = readdirSync(CORPUS)
      .sort()
      .filter((name) => existsSync(join(CORPUS, name, 'expected.html')))
      .map((name) => {
        const html = readFileSync(join(CORPUS, name, 'expected.html'), 'utf8');
        const paragraphs = html
          .split(/<\/(?:p|h\d|li|pre|blockquote|div)>/i)
          .map((block) =>
            block
              .replace(/<[^>]*>/g, ' ')
              .replace(/&nbsp;/g, ' ')
              .replace(/&lt;/g, '<')
              .replace(/&gt;/g, '>')
              .replace(/&quot;/g, '"')
              .replace(/&#39;|&apos;/g, "'")
              .replace(/&amp;/g, '&')
              .replace(/\s+/g, ' ')
              .trim(),
          )
          .filter((paragraph) => paragraph.length > 40);
        return { title: name, paragraphs };
      })
      .filter((article) => article.paragraphs.length > 0);
    if (found.length > 0) return found;
  }
  const words = 'harbour river delta lighthouse keeper island ferry channel barge tide pilot berth'.split(
    ' ',
  );
  const sentence = (seed: number) =>
    `${Array.from({ length: 60 }, (_, word) => words[(seed + word * 5) % words.length]).join(' ')}.`;
  return Array.from({ length: 20 }, (_, article) => ({
    title: `Generated article ${article + 1}`,
    paragraphs: Array.from({ length: 12 }, (_, paragraph) => sentence(article * 7 + paragraph * 3)),
  }));
}

/** groff source: `\` and lines starting with `.` or `'` escaped. */
function groffSource(pages: number): string {
  const quote = (text: string) => text.replace(/\\/g, '\\e').replace(/^[.']/, '\\&$&');
  const texts = articles();
  const lines: string[] = [];
  let chars = 0;
  for (let pass = 0; chars < pages * CHARS_PER_PAGE; pass++) {
    for (const article of texts) {
      lines.push('.NH', quote(`${article.title} (${pass + 1})`));
      for (const paragraph of article.paragraphs) {
        lines.push('.PP', quote(paragraph));
        chars += paragraph.length;
      }
      if (chars >= pages * CHARS_PER_PAGE) break;
    }
  }
  return `${lines.join('\n')}\n`;
}

function makePdf(directory: string): { path: string; tool: string } | string {
  const source = groffSource(targetPages);
  const path = join(directory, 'large.pdf');
  if (has('groff') && has('gropdf')) {
    writeFileSync(join(directory, 'large.ms'), source);
    execFileSync('sh', ['-c', 'groff -k -ms -Tpdf -W break -W char large.ms > large.pdf'], {
      cwd: directory,
      stdio: 'inherit',
    });
    return { path, tool: 'groff -k -ms -Tpdf' };
  }
  if (has('enscript') && has('ps2pdf')) {
    const text = source
      .replace(/^\.(?:NH|PP)$/gm, '')
      .replace(/\\e/g, '\\')
      .replace(/\\&/g, '');
    writeFileSync(join(directory, 'large.txt'), text);
    execFileSync('sh', ['-c', 'enscript -q --word-wrap -B -p - large.txt | ps2pdf - large.pdf'], {
      cwd: directory,
    });
    return { path, tool: 'enscript | ps2pdf' };
  }
  return 'no PDF tool: install groff (gropdf) or enscript and ghostscript (apt-get install groff)';
}

const directory = mkdtempSync(join(tmpdir(), 'periscope-pdf-bench-'));
try {
  const made = makePdf(directory);
  if (typeof made === 'string') {
    console.log(`skipped: ${made}`);
  } else {
    const bytes = new Uint8Array(readFileSync(made.path));
    const loadStarted = performance.now();
    const { renderPdf } = await import('../src/content/pdf.ts');
    const first = await renderPdf(bytes, { maxPages: Number.MAX_SAFE_INTEGER });
    const coldMs = performance.now() - loadStarted;
    const samples: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const started = performance.now();
      await renderPdf(bytes, { maxPages: Number.MAX_SAFE_INTEGER });
      samples.push(performance.now() - started);
    }
    samples.sort((a, b) => a - b);
    const medianMs = samples[Math.floor(samples.length / 2)]!;
    const pages = first.pageCount;
    const sizeMb = statSync(made.path).size / 1e6;
    console.log(
      `PDF extraction: ${pages} pages, ${sizeMb.toFixed(1)} MB, ${first.text.length} chars of text, made by ${made.tool} (node ${process.version})`,
    );
    console.log('engine                         pages/s   median ms   first call ms   peak RSS');
    const row = (name: string, ms: number, first: string, rss: string) =>
      console.log(
        `${name.padEnd(28)} ${((pages / ms) * 1000).toFixed(0).padStart(9)} ${ms.toFixed(0).padStart(11)} ${first.padStart(15)} ${rss.padStart(10)}`,
      );
    row(
      `periscope renderPdf ×${rounds}`,
      medianMs,
      `${coldMs.toFixed(0)} (+load)`,
      `${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`,
    );
    if (has('pdftotext')) {
      const times: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const started = performance.now();
        execFileSync('pdftotext', [made.path, join(directory, 'large.txt')]);
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      row(`poppler pdftotext ×${rounds}`, times[Math.floor(times.length / 2)]!, '—', '—');
    }
  }
} finally {
  rmSync(directory, { recursive: true, force: true });
}
