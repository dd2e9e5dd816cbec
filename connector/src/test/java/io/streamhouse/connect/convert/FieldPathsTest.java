package io.streamhouse.connect.convert;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FieldPathsTest {
  private final FieldPaths paths = new FieldPaths();

  @Test
  void namesTopLevelColumnsNestedFieldsAndListElements() {
    assertThat(paths.child("", "customer")).isEqualTo("customer");
    assertThat(paths.child("customer", "name")).isEqualTo("customer.name");
    assertThat(paths.element("tags", 3)).isEqualTo("tags[3]");
    assertThat(paths.child(paths.element("lines", 0), "sku")).isEqualTo("lines[0].sku");
  }

  @Test
  void keepsEachPathOnceMade() {
    assertThat(paths.child("customer", "name")).isSameAs(paths.child("customer", "name"));
    assertThat(paths.element("tags", 2)).isSameAs(paths.element("tags", 2));
  }

  @Test
  void buildsLongListIndexesPerCallWithoutKeepingThem() {
    int index = FieldPaths.MAX_INDEX + 5;
    String first = paths.element("tags", index);
    assertThat(first).isEqualTo("tags[" + index + "]");
    assertThat(paths.element("tags", index)).isEqualTo(first).isNotSameAs(first);
  }

  @Test
  void keepsAtMostTheBoundAndStillNamesEveryPath() {
    for (int i = 0; i < FieldPaths.MAX_PATHS; i++) {
      paths.child("parent", "field" + i);
    }
    String past = paths.child("parent", "one-more");
    assertThat(past).isEqualTo("parent.one-more");
    assertThat(paths.child("parent", "one-more")).isNotSameAs(past);
    assertThat(paths.element("list", 1)).isEqualTo("list[1]");
    assertThat(paths.child("parent", "field0")).isSameAs(paths.child("parent", "field0"));
  }
}
