// A URDF's XML checked before a model is built from it: not XML, no <robot>, no <link>, each in words.
// No three.js here: the page checks with the browser's own parser what the 3D view's worker then builds.

/**
 * What is wrong with a URDF's XML, in words, or undefined. Run where the browser's own parser is (the
 * page): the view's worker parses with linkedom, which forgives XML that the browser refuses.
 */
export function checkRobotXml(urdf: string, source: string): string | undefined {
  return readRobotXml(urdf, source).problem;
}

export function readRobotXml(urdf: string, source: string): { document: Document; problem?: string } {
  const document = new DOMParser().parseFromString(urdf, 'text/xml');
  const parseError = document.getElementsByTagName('parsererror')[0];
  if (parseError !== undefined) {
    const detail = (parseError.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 160);
    return { document, problem: `the robot model from ${source} is not valid XML (${detail || 'no detail'})` };
  }
  const robotNode = document.documentElement;
  if (robotNode === null || robotNode.nodeName !== 'robot')
    return { document, problem: `the robot model from ${source} has no <robot> element (it starts with <${robotNode?.nodeName ?? 'nothing'}>)` };
  if (robotNode.getElementsByTagName('link').length === 0) return { document, problem: `the robot model from ${source} has no <link>` };
  return { document };
}
