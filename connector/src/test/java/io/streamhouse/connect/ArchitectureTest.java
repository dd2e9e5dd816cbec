package io.streamhouse.connect;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The layering of docs/architecture.md, checked on the compiled main classes. */
class ArchitectureTest {
  private static JavaClasses main;

  @BeforeAll
  static void importMainClasses() {
    main =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.streamhouse.connect");
  }

  @Test
  void packagesDependOnEachOtherWithoutCycles() {
    slices().matching("io.streamhouse.connect.(*)..").should().beFreeOfCycles().check(main);
  }

  @Test
  void theTaskSideAndTheCoordinatorMeetOnlyOnTheWire() {
    slices().matching("io.streamhouse.connect.commit.(*)..").should().beFreeOfCycles().check(main);
    noClasses()
        .that()
        .resideInAPackage("io.streamhouse.connect.commit")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("..commit.wire..", "..commit.task..", "..commit.coordinator..")
        .because("what both sides share sits below them")
        .check(main);
    noClasses()
        .that()
        .resideInAPackage("..commit.wire..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("..commit.task..", "..commit.coordinator..")
        .because("the control topic's format and channel know neither side")
        .check(main);
    noClasses()
        .that()
        .resideInAPackage("..commit.task..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("..commit.coordinator..")
        .because("a task hears the coordinator only through control events")
        .check(main);
    noClasses()
        .that()
        .resideInAPackage("..commit.coordinator..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("..commit.task..")
        .because("the coordinator hears the tasks only through control events")
        .check(main);
  }

  @Test
  void aFormatNeverUsesAnotherFormat() {
    noClasses()
        .that()
        .resideInAPackage("..table.iceberg..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("..table.paimon..")
        .check(main);
    noClasses()
        .that()
        .resideInAPackage("..table.paimon..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("..table.iceberg..")
        .check(main);
  }

  @Test
  void theFormatSpiNamesNoFormat() {
    noClasses()
        .that()
        .resideInAPackage("io.streamhouse.connect.table")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("..table.iceberg..", "..table.paimon..")
        .check(main);
  }

  @Test
  void theProtocolVocabularyDependsOnNothingOfOurs() {
    classes()
        .that()
        .resideInAPackage("..connect.protocol..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "java..", "org.apache.kafka.common..", "io.streamhouse.connect.protocol..")
        .check(main);
  }

  @Test
  void onlyTheConnectAdapterWiresInTheMigrationFromTheApacheSink() {
    noClasses()
        .that()
        .resideOutsideOfPackage("..connect.migration..")
        .and(
            not(
                belongToAnyOf(
                    StreamhouseSinkConnector.class, StreamhouseSinkTask.class, TaskRuntime.class)))
        .should()
        .dependOnClassesThat()
        .resideInAPackage("..connect.migration..")
        .because(
            "switching from the Apache Iceberg sink is one feature in one package; the connector"
                + " translates its config before validation, task 0 starts its take-over")
        .check(main);
  }

  @Test
  void formatsRoutingAndConfigKnowNothingOfTheCommitProtocol() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "..connect.table..",
            "..connect.routing..",
            "..connect.config..",
            "..connect.decode..",
            "..connect.schema..",
            "..connect.errors..",
            "..connect.protocol..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("..connect.commit..")
        .because("the task wires the protocol to the formats; a format is usable without it")
        .check(main);
  }

  @Test
  void theConverterStandsAlone() {
    classes()
        .that()
        .resideInAPackage("..connect.converter..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "java..",
            "com.fasterxml.jackson.core..",
            "org.apache.kafka.common..",
            "org.apache.kafka.connect.data..",
            "org.apache.kafka.connect.errors..",
            "org.apache.kafka.connect.json..",
            "org.apache.kafka.connect.storage..",
            "org.slf4j..",
            "javax.management..",
            "io.streamhouse.connect.converter..")
        .because(
            "a user sets it as value.converter; it uses nothing of the sink and Jackson's parser only")
        .check(main);
  }

  @Test
  void theSinkReadsConvertedValuesOnlyThroughTheConverterApi() {
    noClasses()
        .that()
        .resideOutsideOfPackage("io.streamhouse.connect.converter..")
        .should()
        .dependOnClassesThat(
            resideInAPackage("io.streamhouse.connect.converter..")
                .and(not(resideInAPackage("io.streamhouse.connect.converter.api"))))
        .because(
            "the sink reads any converter's values through Connect's data API or, for a struct"
                + " a converter decoded, through converter.api (docs/architecture.md)")
        .check(main);
  }
}
