package io.streamhouse.connect.decode;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ValuePathTest {
  private final ValuePath path = new ValuePath();

  @Test
  void namesTheRecordValueTopLevelColumnsNestedFieldsListElementsAndMapKeys() {
    assertThat(path).hasToString("<value>");
    path.enter("customer");
    assertThat(path).hasToString("customer");
    path.enter("name");
    assertThat(path).hasToString("customer.name");
    path.leave();
    path.leave();
    path.enter("lines");
    path.enterElement(3);
    path.enter("sku");
    assertThat(path).hasToString("lines[3].sku");
    path.leave();
    path.leave();
    path.enter(42L);
    assertThat(path).hasToString("lines.42");
  }

  @Test
  void aResetForgetsWhatAnErrorLeftBehind() {
    path.enter("customer");
    path.enter("name");
    path.reset();
    path.enter("id");
    assertThat(path).hasToString("id");
  }

  @Test
  void goesDeeperThanItsFirstCapacity() {
    StringBuilder expected = new StringBuilder("f0");
    path.enter("f0");
    for (int i = 1; i < 100; i++) {
      path.enter("f" + i);
      expected.append(".f").append(i);
    }
    path.enterElement(7);
    assertThat(path).hasToString(expected + "[7]");
  }
}
