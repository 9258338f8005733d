/**
 * Reading a JUnit report back in tests: a small XML reader (elements, attributes, text, the five
 * entities and character references; it throws on what is not well formed) and validation against the
 * JUnit schema in test/Scorecard/Render/junit.xsd.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { validateXML } from "xmllint-wasm"

// The JUnit schema the reports are checked against.
const junitSchema = readFileSync(fileURLToPath(new URL("../Scorecard/Render/junit.xsd", import.meta.url)), "utf8")

/** The schema problems of an XML document (none when it is valid), against the JUnit schema unless told another. */
export const validateJUnit = async (xml: string, xsd: string = junitSchema): Promise<Array<string>> => {
  const result = await validateXML({
    xml: { fileName: "report.xml", contents: xml },
    schema: { fileName: "junit.xsd", contents: xsd }
  })
  return result.errors.map((e) => e.message)
}

/** An element read back: its name, attributes, child elements and text (entities decoded). */
export interface XmlElement {
  readonly name: string
  readonly attributes: Record<string, string>
  readonly children: Array<XmlElement>
  text: string
}

const decodeEntities = (raw: string): string =>
  raw.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);/g, (_, ref: string) => {
    if (ref.startsWith("#x")) return String.fromCodePoint(parseInt(ref.slice(2), 16))
    if (ref.startsWith("#")) return String.fromCodePoint(parseInt(ref.slice(1), 10))
    return { amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'" }[ref]!
  })

const entity = /&(?!(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);)/

/** Reads an XML document with a declaration and one root element; throws on anything not well formed. */
export const parseXml = (xml: string): XmlElement => {
  let at = 0
  const fail = (what: string): never => {
    throw new Error(`${what} at ${at}: ${JSON.stringify(xml.slice(at, at + 40))}`)
  }
  const declaration = /^<\?xml [^?]*\?>\s*/.exec(xml)
  if (declaration === null) return fail("no XML declaration")
  at = declaration[0].length
  const element = (): XmlElement => {
    const open = /^<([A-Za-z][\w-]*)((?:\s+[\w-]+="[^"<]*")*)\s*(\/?)>/.exec(xml.slice(at))
    if (open === null) return fail("expected an element")
    at += open[0].length
    const attributes: Record<string, string> = {}
    for (const [, key, value] of open[2]!.matchAll(/([\w-]+)="([^"]*)"/g)) {
      if (key! in attributes) fail(`duplicate attribute ${key}`)
      if (entity.test(value!)) fail("bare & in an attribute")
      attributes[key!] = decodeEntities(value!)
    }
    const node: XmlElement = { name: open[1]!, attributes, children: [], text: "" }
    if (open[3] === "/") return node
    for (;;) {
      const text = /^[^<]*/.exec(xml.slice(at))![0]
      if (entity.test(text)) fail("bare &")
      if (text.includes("]]>")) fail("]]> in text")
      node.text += decodeEntities(text)
      at += text.length
      if (at >= xml.length) fail(`unclosed ${node.name}`)
      if (xml.startsWith(`</${node.name}>`, at)) {
        at += node.name.length + 3
        return node
      }
      if (xml.startsWith("</", at)) fail(`mismatched close of ${node.name}`)
      node.children.push(element())
    }
  }
  const root = element()
  if (xml.slice(at).trim() !== "") fail("content after the root")
  return root
}

/** Every element named `name` at or below `node`, in document order. */
export const allElements = (node: XmlElement, name: string): Array<XmlElement> => [
  ...(node.name === name ? [node] : []),
  ...node.children.flatMap((child) => allElements(child, name))
]
