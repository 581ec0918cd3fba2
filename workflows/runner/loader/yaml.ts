import { type Document, isAlias, isMap, isScalar, isSeq, parseDocument } from "yaml";
import { InvalidWorkflowError } from "../errors.js";
import { Double, type WfMap, type WfValue } from "../values.js";

/**
 * Parses workflow source (YAML, or JSON which YAML 1.2 includes) into runner values.
 * Walking the document instead of calling toJS() lets a literal `2.0` stay a double.
 */
export function parseSource(text: string, sourceName: string): WfValue {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  const first = doc.errors[0];
  if (first) throw new InvalidWorkflowError(sourceName, `invalid YAML: ${first.message}`);
  return convert(doc.contents, doc, text);
}

function convert(node: unknown, doc: Document, text: string): WfValue {
  if (node === null || node === undefined) return null;
  if (isAlias(node)) return convert(node.resolve(doc), doc, text);
  if (isScalar(node)) return scalar(node.value, node.range ? text.slice(node.range[0], node.range[1]) : "");
  if (isSeq(node)) return node.items.map((item) => convert(item, doc, text));
  if (isMap(node)) {
    const out: WfMap = new Map();
    for (const pair of node.items) {
      const key = convert(pair.key, doc, text);
      out.set(keyText(key), convert(pair.value, doc, text));
    }
    return out;
  }
  return null;
}

function keyText(key: WfValue): string {
  if (typeof key === "string") return key;
  return key instanceof Double ? String(key.value) : String(key);
}

function scalar(value: unknown, source: string): WfValue {
  if (typeof value === "number") {
    if (Number.isInteger(value) && /^[-+]?(\d[\d_]*)?\.|[eE]/.test(source.trim())) return new Double(value);
    return value;
  }
  if (value === null || typeof value === "boolean" || typeof value === "string") return value;
  return String(value);
}
