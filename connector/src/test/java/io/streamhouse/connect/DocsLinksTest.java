package io.streamhouse.connect;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every relative Markdown link in README.md, CONTRIBUTING.md and docs/*.md points at a file that
 * exists, and its {@code #anchor}, if any, at a heading of the target (GitHub's anchor rules).
 */
class DocsLinksTest {
  private static final Path ROOT =
      Path.of(System.getProperty("streamhouse.repo.root", "..")).toAbsolutePath().normalize();

  /** {@code [text](target)} and {@code ![alt](target)}, with an optional title. */
  private static final Pattern INLINE_LINK =
      Pattern.compile("!?\\[[^\\]]*\\]\\(\\s*<?([^)\\s>]*)>?(?:\\s+\"[^\"]*\")?\\s*\\)");

  /** {@code [label]: target}, a reference definition on a line of its own. */
  private static final Pattern REFERENCE_DEFINITION =
      Pattern.compile("^\\s{0,3}\\[[^\\]]+\\]:\\s*<?(\\S+?)>?(?:\\s+.*)?$");

  private static final Pattern CODE_SPAN = Pattern.compile("(`+)(.+?)\\1");
  private static final Pattern HEADING =
      Pattern.compile("^\\s{0,3}#{1,6}\\s+(.*?)(?:\\s+#+)?\\s*$");
  private static final Pattern HTML_ANCHOR =
      Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"", Pattern.CASE_INSENSITIVE);
  private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:");

  @Test
  void everyRelativeLinkOfTheDocsPointsAtAnExistingFileAndHeading() throws IOException {
    List<Path> pages = pages(ROOT);
    assertThat(pages)
        .contains(ROOT.resolve("README.md"), ROOT.resolve("CONTRIBUTING.md"))
        .anySatisfy(p -> assertThat(p.getParent()).isEqualTo(ROOT.resolve("docs")));
    int checked = 0;
    List<String> broken = new ArrayList<>();
    for (Path page : pages) {
      List<Link> links = links(page);
      checked += links.size();
      broken.addAll(broken(links));
    }
    assertThat(checked).as("relative links found").isGreaterThan(20);
    assertThat(broken).as("broken links").isEmpty();
  }

  @Test
  void aMissingFileOrHeadingIsReported(@TempDir Path dir) throws IOException {
    Files.createDirectories(dir.resolve("docs"));
    Files.writeString(
        dir.resolve("docs/page.md"),
        "# A page\n\n## Reading Paimon tables with Iceberg engines\n\n### Invariant *contiguity*\n");
    Files.writeString(
        dir.resolve("README.md"),
        String.join(
            "\n",
            "# Readme",
            "[ok](docs/page.md) [ok](docs/page.md#reading-paimon-tables-with-iceberg-engines)",
            "[ok](docs/page.md#invariant-contiguity) [ok](#readme) [ok](https://example.com/x.md)",
            "[missing file](docs/gone.md) [missing heading](docs/page.md#no-such-heading)",
            "[a link whose text",
            "spans two lines](docs/also-gone.md) [and one](docs/page.md#a-page) that does not",
            "```",
            "[in a code block](nowhere.md)",
            "```",
            "`[in a code span](nowhere.md)`",
            ""));
    assertThat(broken(links(dir.resolve("README.md"))))
        .hasSize(3)
        .anySatisfy(b -> assertThat(b).contains("docs/gone.md").contains("no such file"))
        .anySatisfy(b -> assertThat(b).contains(":5: docs/also-gone.md").contains("no such file"))
        .anySatisfy(b -> assertThat(b).contains("#no-such-heading").contains("no such heading"));
  }

  @Test
  void anchorsFollowGitHubsRules() {
    assertThat(anchor("Reading Paimon tables with Iceberg engines"))
        .isEqualTo("reading-paimon-tables-with-iceberg-engines");
    assertThat(anchor("Invariant *skip-what-the-table-has*"))
        .isEqualTo("invariant-skip-what-the-table-has");
    assertThat(anchor("Drain: our sink against the Apache Iceberg sink"))
        .isEqualTo("drain-our-sink-against-the-apache-iceberg-sink");
    assertThat(anchor("`route.<name>.table_field` & more")).isEqualTo("routenametable_field--more");
    assertThat(anchor("A [linked](other.md) heading")).isEqualTo("a-linked-heading");
  }

  private static List<Path> pages(Path root) throws IOException {
    List<Path> pages = new ArrayList<>();
    pages.add(root.resolve("README.md"));
    pages.add(root.resolve("CONTRIBUTING.md"));
    try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    for (Path page : pages) {
      assertThat(page).isRegularFile();
    }
    return pages;
  }

  private record Link(Path page, int line, String target) {}

  /**
   * The relative links of a page, outside code blocks and code spans; a link's text may span lines,
   * as it may in Markdown.
   */
  private static List<Link> links(Path page) throws IOException {
    List<Link> links = new ArrayList<>();
    List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
    StringBuilder text = new StringBuilder();
    boolean inFence = false;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.strip().startsWith("```") || line.strip().startsWith("~~~")) {
        inFence = !inFence;
        text.append('\n');
        continue;
      }
      if (inFence) {
        text.append('\n');
        continue;
      }
      String outsideCode = CODE_SPAN.matcher(line).replaceAll("code");
      text.append(outsideCode).append('\n');
      Matcher definition = REFERENCE_DEFINITION.matcher(outsideCode);
      if (definition.matches()) {
        addIfRelative(links, page, i + 1, definition.group(1));
      }
    }
    Matcher inline = INLINE_LINK.matcher(text);
    while (inline.find()) {
      if (!inline.group().contains("\n\n")) {
        int line =
            1 + (int) text.substring(0, inline.start()).chars().filter(c -> c == '\n').count();
        addIfRelative(links, page, line, inline.group(1));
      }
    }
    return links;
  }

  private static void addIfRelative(List<Link> links, Path page, int line, String target) {
    if (!target.isEmpty() && !SCHEME.matcher(target).find() && !target.startsWith("//")) {
      links.add(new Link(page, line, target));
    }
  }

  /** One line per broken link: the page, the line, the target and what is wrong with it. */
  private static List<String> broken(List<Link> links) throws IOException {
    List<String> broken = new ArrayList<>();
    for (Link link : links) {
      int hash = link.target().indexOf('#');
      String path = hash < 0 ? link.target() : link.target().substring(0, hash);
      String fragment = hash < 0 ? null : link.target().substring(hash + 1);
      Path target =
          path.isEmpty()
              ? link.page()
              : link.page()
                  .getParent()
                  .resolve(URLDecoder.decode(path, StandardCharsets.UTF_8))
                  .normalize();
      if (!Files.exists(target)) {
        broken.add(link.page() + ":" + link.line() + ": " + link.target() + " (no such file)");
      } else if (fragment != null) {
        if (!Files.isRegularFile(target) || !target.toString().endsWith(".md")) {
          broken.add(
              link.page() + ":" + link.line() + ": " + link.target() + " (anchor on a non-page)");
        } else if (!anchors(target).contains(fragment)) {
          broken.add(link.page() + ":" + link.line() + ": " + link.target() + " (no such heading)");
        }
      }
    }
    return broken;
  }

  /** The anchors GitHub gives a page: one per heading (duplicates numbered), and HTML anchors. */
  private static Set<String> anchors(Path page) throws IOException {
    Set<String> anchors = new HashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    boolean inFence = false;
    for (String line : Files.readAllLines(page, StandardCharsets.UTF_8)) {
      if (line.strip().startsWith("```") || line.strip().startsWith("~~~")) {
        inFence = !inFence;
        continue;
      }
      if (inFence) {
        continue;
      }
      Matcher heading = HEADING.matcher(line);
      if (heading.matches()) {
        String anchor = anchor(heading.group(1));
        int n = seen.merge(anchor, 1, Integer::sum);
        anchors.add(n == 1 ? anchor : anchor + "-" + (n - 1));
      }
      Matcher html = HTML_ANCHOR.matcher(line);
      while (html.find()) {
        anchors.add(html.group(1));
      }
    }
    return anchors;
  }

  /**
   * GitHub's anchor of a heading: the text (links reduced to their text), lower case, every
   * character but letters, digits, spaces, '-' and '_' removed, spaces turned into '-'.
   */
  static String anchor(String heading) {
    String text = heading.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1");
    return text.strip()
        .toLowerCase(Locale.ROOT)
        .replaceAll("[^\\p{L}\\p{N} _-]", "")
        .replace(' ', '-');
  }
}
