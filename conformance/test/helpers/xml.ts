/**
 * A strict little XML 1.0 reader for the tests: enough to prove that the JUnit output is
 * well-formed (one root, balanced tags, quoted attributes without raw `<` or `&`, only the five
 * predefined entities or character references, no control characters XML forbids, CDATA sections
 * that end once) and to read it back as a tree.
 */
export interface XmlElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: XmlElement[];
  text: string;
}

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const NAME = /^[A-Za-z_:][-A-Za-z0-9_:.]*/;

function decode(raw: string, where: string): string {
  for (const character of raw) {
    const code = character.codePointAt(0) ?? 0;
    const forbidden =
      (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) ||
      (code >= 0xd800 && code <= 0xdfff) ||
      code === 0xfffe ||
      code === 0xffff;
    if (forbidden) throw new Error(`forbidden character U+${code.toString(16)} in ${where}`);
  }
  return raw.replace(/&([^;]*);|&/g, (whole, name: string | undefined) => {
    if (name === undefined) throw new Error(`bare & in ${where}`);
    if (Object.hasOwn(ENTITIES, name)) return ENTITIES[name] ?? '';
    const reference = /^#(x[0-9A-Fa-f]+|[0-9]+)$/.exec(name);
    if (reference === null) throw new Error(`unknown entity ${whole} in ${where}`);
    const value = reference[1] ?? '';
    return String.fromCodePoint(value.startsWith('x') ? parseInt(value.slice(1), 16) : parseInt(value, 10));
  });
}

function parseAttributes(source: string, tag: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  let rest = source.trim();
  while (rest !== '') {
    const match = /^([A-Za-z_:][-A-Za-z0-9_:.]*)\s*=\s*("([^"]*)"|'([^']*)')\s*/.exec(rest);
    if (match === null) throw new Error(`malformed attributes in <${tag}>: ${rest.slice(0, 40)}`);
    const name = match[1] ?? '';
    const value = match[3] ?? match[4] ?? '';
    if (value.includes('<')) throw new Error(`raw < in attribute ${name} of <${tag}>`);
    if (Object.hasOwn(attributes, name)) throw new Error(`duplicate attribute ${name} in <${tag}>`);
    attributes[name] = decode(value, `attribute ${name}`);
    rest = rest.slice(match[0].length);
  }
  return attributes;
}

/** The index of the `>` that ends the tag opened at `open`; a `>` inside a quoted attribute value is text. */
function tagEnd(document: string, open: number): number {
  let quote: string | undefined;
  for (let index = open + 1; index < document.length; index += 1) {
    const character = document[index];
    if (quote !== undefined) {
      if (character === quote) quote = undefined;
    } else if (character === '"' || character === "'") quote = character;
    else if (character === '>') return index;
  }
  return -1;
}

/** Parses a document; throws with a reason when it is not well-formed. */
export function parseXml(document: string): XmlElement {
  let index = 0;
  const declaration = /^<\?xml[^?]*\?>\s*/.exec(document);
  if (declaration !== null) index = declaration[0].length;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  while (index < document.length) {
    const open = document.indexOf('<', index);
    const text = document.slice(index, open === -1 ? document.length : open);
    const current = stack[stack.length - 1];
    if (current === undefined) {
      if (text.trim() !== '') throw new Error('text outside the root element');
    } else current.text += decode(text, `<${current.name}> text`);
    if (open === -1) break;
    if (document.startsWith('<![CDATA[', open)) {
      const end = document.indexOf(']]>', open);
      if (end === -1 || current === undefined) throw new Error('CDATA section unterminated or outside the root');
      current.text += decode(document.slice(open + '<![CDATA['.length, end).replace(/&/g, '&amp;'), 'CDATA');
      index = end + ']]>'.length;
      continue;
    }
    const close = tagEnd(document, open);
    if (close === -1) throw new Error('unterminated tag');
    const tag = document.slice(open + 1, close);
    index = close + 1;
    if (tag.startsWith('/')) {
      const name = tag.slice(1).trim();
      const top = stack.pop();
      if (top?.name !== name) throw new Error(`</${name}> closes <${top?.name ?? 'nothing'}>`);
      continue;
    }
    const selfClosing = tag.endsWith('/');
    const body = selfClosing ? tag.slice(0, -1) : tag;
    const name = NAME.exec(body)?.[0];
    if (name === undefined) throw new Error(`bad tag name in <${tag.slice(0, 20)}>`);
    const element: XmlElement = {
      name,
      attributes: parseAttributes(body.slice(name.length), name),
      children: [],
      text: '',
    };
    if (current === undefined) {
      if (root !== undefined) throw new Error('more than one root element');
      root = element;
    } else current.children.push(element);
    if (!selfClosing) stack.push(element);
  }
  if (stack.length > 0) throw new Error(`<${stack[stack.length - 1]?.name ?? ''}> is never closed`);
  if (root === undefined) throw new Error('no root element');
  return root;
}
