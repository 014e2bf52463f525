import { type DomElement, ELEMENT_NODE } from './dom.ts';
import { type ElementRenderer, flush, pushBlock, renderContainer } from './sink.ts';

/** Columns beyond this are dropped and `colspan` is capped to it (hostile or generated tables). */
const MAX_COLUMNS = 64;

/**
 * A data table becomes a GFM pipe table (first row as header) in Markdown, tab-separated rows in text
 * mode. A layout table (nested tables, `role="presentation"`, a single column) is read as its cells' blocks.
 */
export const renderTable: ElementRenderer = (table, sink, context) => {
  flush(sink, context);
  const caption = childrenNamed(table, 'caption')[0];
  if (caption) pushBlock(sink, context, renderContainer(caption, context, ' '));
  const rows = tableRows(table);
  const cellRows = rows.map((row) =>
    elementChildren(row).filter((cell) => cell.localName === 'td' || cell.localName === 'th'),
  );
  if (isLayoutTable(table, cellRows)) {
    // Each cell is a block of its own: run together, the last word of one would fuse with the next.
    for (const cells of cellRows) {
      for (const cell of cells) {
        context.renderChildren(cell, sink);
        flush(sink, context);
      }
    }
    return;
  }
  const grid = cellRows.map((cells) => cells.flatMap((cell) => spannedCell(cell, cellText(cell, context))));
  const width = Math.min(
    MAX_COLUMNS,
    grid.reduce((widest, row) => Math.max(widest, row.length), 0),
  );
  const filled = grid
    .filter((row) => row.some((cell) => cell !== ''))
    .map((row) => Array.from({ length: width }, (_, index) => row[index] ?? ''));
  if (filled.length === 0) return;
  pushBlock(
    sink,
    context,
    context.markdown ? pipeTable(filled) : filled.map((row) => row.join('\t')).join('\n'),
  );
};

function pipeTable(rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const [header, ...body] = rows;
  return [line(header!), line(header!.map(() => '---')), ...body.map(line)].join('\n');
}

/** `<tr>`s of this table only (directly, or in `<thead>`/`<tbody>`/`<tfoot>`), in document order. */
function tableRows(table: DomElement): DomElement[] {
  const rows: DomElement[] = [];
  for (const child of elementChildren(table)) {
    if (child.localName === 'tr') rows.push(child);
    else if (child.localName === 'thead' || child.localName === 'tbody' || child.localName === 'tfoot') {
      rows.push(...childrenNamed(child, 'tr'));
    }
  }
  return rows;
}

function isLayoutTable(table: DomElement, cellRows: DomElement[][]): boolean {
  const role = table.getAttribute('role');
  if (role === 'presentation' || role === 'none') return true;
  if (cellRows.every((cells) => cells.length <= 1)) return true;
  return cellRows.some((cells) => cells.some((cell) => cell.getElementsByTagName('table').length > 0));
}

/** A cell's content on one line: breaks become `<br>` (Markdown) or spaces, pipes are escaped. */
function cellText(cell: DomElement, context: Parameters<ElementRenderer>[2]): string {
  const wasInCell = context.inTableCell;
  context.inTableCell = true;
  let text: string;
  try {
    text = renderContainer(cell, context, '\n');
  } finally {
    context.inTableCell = wasInCell === true;
  }
  if (!context.markdown) return text.replace(/\s+/g, ' ');
  return text.replace(/\|/g, '\\|').replace(/\n+/g, '<br>');
}

function spannedCell(cell: DomElement, text: string): string[] {
  const span = Number.parseInt(cell.getAttribute('colspan') ?? '1', 10);
  const extra = Number.isFinite(span) ? Math.min(Math.max(span, 1), MAX_COLUMNS) - 1 : 0;
  return [text, ...Array.from({ length: extra }, () => '')];
}

function elementChildren(element: DomElement): DomElement[] {
  const children: DomElement[] = [];
  for (let child = element.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === ELEMENT_NODE) children.push(child as DomElement);
  }
  return children;
}

function childrenNamed(element: DomElement, name: string): DomElement[] {
  return elementChildren(element).filter((child) => child.localName === name);
}
