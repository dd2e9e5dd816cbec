package io.streamhouse.connect.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The largest open file is closed when the bytes or the count run over; a file just opened is
 * spared.
 */
class FileBudgetTest {
  private final List<String> closed = new ArrayList<>();

  private final class Fake implements FileBudget.OpenFile {
    final String name;
    long bytes;
    final FileBudget budget;

    Fake(String name, FileBudget budget, long opening) {
      this.name = name;
      this.budget = budget;
      this.bytes = opening;
      budget.opened(this, opening);
    }

    void write(long size) {
      bytes += size;
      budget.charge(size);
    }

    @Override
    public long bufferedBytes() {
      return bytes;
    }

    @Override
    public void closeEarly() {
      closed.add(name);
    }
  }

  @Test
  void writesInSmallStepsCloseAFileAtTheFirstByteOverTheBudgetEvenAfterARelease() {
    long max = 64L << 20;
    FileBudget budget = new FileBudget(100, max);
    Fake a = new Fake("a", budget, 0);
    Fake b = new Fake("b", budget, 0);
    for (long i = 0; i < max / 2; i += 64) {
      a.write(64);
      b.write(64);
    }
    assertThat(budget.bufferedBytes()).isEqualTo(max);
    assertThat(closed).isEmpty();
    b.write(1);
    assertThat(closed).as("one byte over").containsExactly("b");

    Fake c = new Fake("c", budget, 0);
    budget.release(a); // far below the budget now
    for (long i = 0; i < max - 1; i += 1_000) {
      c.write(Math.min(1_000, max - i));
    }
    assertThat(budget.bufferedBytes()).isEqualTo(max);
    assertThat(closed).containsExactly("b");
    c.write(1);
    assertThat(closed).containsExactly("b", "c");
    assertThat(budget.evictions()).isEqualTo(2);
  }

  @Test
  void overTheBytesTheFileHoldingTheMostIsClosed() {
    FileBudget budget = new FileBudget(100, 1_000);
    Fake a = new Fake("a", budget, 10);
    Fake b = new Fake("b", budget, 10);
    Fake c = new Fake("c", budget, 10);
    a.write(300);
    b.write(500);
    c.write(100);
    assertThat(closed).isEmpty();
    assertThat(budget.bufferedBytes()).isEqualTo(930);
    c.write(100); // 1,030: b holds the most
    assertThat(closed).containsExactly("b");
    assertThat(budget.bufferedBytes()).isEqualTo(520);
    assertThat(budget.openFiles()).isEqualTo(2);
    budget.release(a);
    assertThat(budget.bufferedBytes()).isEqualTo(210);
    assertThat(budget.evictions()).isEqualTo(1);
  }

  @Test
  void overTheCountTheLargestOtherFileIsClosedNeverTheOneJustOpened() {
    FileBudget budget = new FileBudget(2, 1_000_000);
    Fake a = new Fake("a", budget, 10);
    a.write(50);
    new Fake("b", budget, 10).write(5);
    new Fake("c", budget, 500); // the largest, but just opened: a goes
    assertThat(closed).containsExactly("a");
    assertThat(budget.openFiles()).isEqualTo(2);
  }

  @Test
  void aFileJustWrittenMayBeTheOneClosed() {
    FileBudget budget = new FileBudget(10, 100);
    Fake a = new Fake("a", budget, 10);
    a.write(200);
    assertThat(closed).containsExactly("a");
    assertThat(budget.bufferedBytes()).isZero();
  }
}
