// The one YAML configuration of snapshot files, for writing and reading, so the
// output is stable byte for byte and the input is read by a real parser.
import YAML from "yaml";
import { invalid } from "../errors.js";

// lineWidth 0: never fold long lines (a one-word change must stay a one-line
// diff). Literal blocks (`|`) for multi-line text, so bodies read as written.
const STRINGIFY: YAML.ToStringOptions & YAML.DocumentOptions & YAML.SchemaOptions & YAML.CreateNodeOptions = {
  version: "1.2",
  schema: "core",
  lineWidth: 0,
  minContentWidth: 0,
  blockQuote: "literal",
  aliasDuplicateObjects: false,
  indent: 2,
  // Text that needs double quotes (a carriage return, a control character) is
  // written as one JSON-style line: yaml 2.9 folds multi-line double-quoted text
  // so that a whitespace-only line does not read back the same (found by the
  // format property test).
  doubleQuotedAsJSON: true,
};

export function toYaml(value: unknown): string {
  return YAML.stringify(value, STRINGIFY);
}

/**
 * Parses one YAML document. `what` names it in the error ("front matter",
 * "the History section"). Aliases are refused: nothing we write uses them, and
 * they are the way to blow a small file up into a huge value.
 */
export function fromYaml(text: string, what: string): unknown {
  const doc = YAML.parseDocument(text, { version: "1.2", schema: "core", uniqueKeys: true, prettyErrors: false, merge: false });
  const error = doc.errors[0];
  if (error) {
    const line = text.slice(0, error.pos[0]).split("\n").length;
    throw invalid(`${what} is not valid YAML (line ${line} of it): ${firstLine(error.message)}. Quote values that contain ": " or start with a special character.`);
  }
  try {
    return doc.toJS({ maxAliasCount: 0 });
  } catch (e) {
    throw invalid(`${what} could not be read: ${firstLine((e as Error).message)}.`);
  }
}

const firstLine = (message: string): string => message.split("\n")[0]!.replace(/\.$/, "");
