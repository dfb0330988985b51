import { Eta } from 'eta';

/**
 * A module's mail templates (Eta), each message as two files in the module's folder:
 * `<name>.text.eta` for the plain-text part and `<name>.html.eta` for the HTML part. The HTML is
 * escaped by default (`<%= %>`), as the portal's pages are; the text part is written as it is,
 * since a mail client shows it as text, and keeps every line break but the one after a tag closed
 * with `-%>` (write control lines, `<% if (…) { -%>`, so). Templates are read from the checkout (platform/paths.ts),
 * like the portal's, and kept once read.
 */
export interface MailTemplates {
  render(name: string, data: object): { text: string; html: string };
}

export function mailTemplates(dir: string): MailTemplates {
  const html = new Eta({ views: dir, autoEscape: true, cache: true });
  const text = new Eta({ views: dir, autoEscape: false, autoTrim: false, cache: true });
  return {
    render(name, data) {
      return { text: text.render(`./${name}.text.eta`, data), html: html.render(`./${name}.html.eta`, data) };
    },
  };
}
